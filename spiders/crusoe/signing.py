"""How Crusoe's API authenticates a request (docs.crusoecloud.com/reference/api,
signature version 1.0): an HMAC-SHA256, keyed with the base64url-decoded
secret key, of "<path>\\n<query>\\n<VERB>\\n<timestamp>\\n", where the path
includes the API version (/v1alpha5/capacities) and the query is the
parameters sorted by name as k=v joined by &. Sent as the headers
X-Crusoe-Timestamp (RFC 3339, whole seconds) and Authorization:
Bearer 1.0:<access key id>:<base64url signature, no padding>. Crusoe ships no
Python SDK; public clients (gpuhunt's Crusoe provider) sign the same way with
the standard library."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlsplit

SIGNATURE_VERSION = "1.0"


def signed_headers(
    method: str, url: str, access_key_id: str, secret_key: str, now: datetime | None = None
) -> dict[str, str]:
    parts = urlsplit(url)
    query = "&".join(f"{k}={v}" for k, v in sorted(parse_qsl(parts.query, keep_blank_values=True)))
    stamp = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0).isoformat()
    payload = f"{parts.path}\n{query}\n{method.upper()}\n{stamp}\n"
    key = base64.urlsafe_b64decode(secret_key + "=" * (-len(secret_key) % 4))
    digest = hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest()
    signature = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
    return {
        "X-Crusoe-Timestamp": stamp,
        "Authorization": f"Bearer {SIGNATURE_VERSION}:{access_key_id}:{signature}",
    }
