"""Verda's API answers: the OAuth token, the instance types, the locations and
the instance availability (`[{location_code, availabilities: [type ...]}]`)."""

from __future__ import annotations

from typing import Any, cast

from spiders.pages import PageShapeError, load_json
from spiders.verda.items import Availability, InstanceType, Location


def _array(body: bytes, what: str) -> list[dict[str, Any]]:
    data = load_json(body, f"Verda: the {what} answer")
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise PageShapeError(f"Verda: the {what} answer is not an array of objects")
    return data


def access_token(body: bytes) -> str:
    data = load_json(body, "Verda: the token answer", exact=False)
    token = data.get("access_token") if isinstance(data, dict) else None
    if not isinstance(token, str) or not token:
        raise PageShapeError("Verda: the token answer has no access_token")
    return token


def parse_instance_types(body: bytes) -> list[InstanceType]:
    types = _array(body, "instance-types")
    if any(not isinstance(t.get("instance_type"), str) or not t["instance_type"] for t in types):
        raise PageShapeError("Verda: an instance type has no instance_type name")
    return [cast(InstanceType, t) for t in types]


def parse_locations(body: bytes) -> list[Location]:
    found = _array(body, "locations")
    if any(not isinstance(loc.get("code"), str) or not loc["code"] for loc in found):
        raise PageShapeError("Verda: a location has no code")
    return [cast(Location, loc) for loc in found]


def parse_availability(body: bytes, spot: bool) -> list[Availability]:
    found = _array(body, "instance-availability")
    for entry in found:
        names = entry.get("availabilities")
        if not isinstance(entry.get("location_code"), str) or not isinstance(names, list):
            raise PageShapeError("Verda: an availability entry has no location_code or availabilities list")
        if not all(isinstance(n, str) for n in names):
            raise PageShapeError("Verda: availabilities holds something that is not a type name")
    return [cast(Availability, {**entry, "spot": spot}) for entry in found]
