"""What a Compute Engine SKU description says: which machine part it prices.

Google names a part in its description, and has named the same kind of part
in several ways over the years, so descriptions are read by rule, not looked
up as exact strings:

- the price model's wording comes off first: "Commitment v1: " (or
  "Commitment: ") in front, "Spot Preemptible " in front or " attached to
  Spot Preemptible VMs" inside, then " running in <place>" / " in <place>"
  and " for 1 Year" / " for 3 Years" at the end;
- a GPU is its model (A100, H100, H200, B200, L4, T4, V100, P4, P100, K80,
  RTX 6000, GB200) with any vendor words ("Nvidia", "Tesla"), its memory
  ("80GB") and its variant: "Mega" and "Plus" both name the H100 of A3 Mega
  ("Nvidia H100 80GB Mega GPU", "Nvidia H100 Mega 80GB GPU" and, in
  us-central1, us-east1 and us-west1, "Nvidia H100 80GB Plus GPU"). A slice
  ("A4 Nvidia B200 (1 gpu slice)") is the whole machine's price per GPU: A4
  has no core or RAM SKUs of its own;
- cores and RAM are "<family> Instance Core|Ram", commitments "<family>
  Cpu|Ram" (N1: "Cpu", "Ram"); the family loses its spaces, so "A3 Ultra" and
  "A3Ultra" are one family, and "A3Plus" (A3 Mega's) is its own;
- bundled Local SSD is "SSD backed Local Storage" (spot: "... attached to
  Spot Preemptible VMs"; commitments "Local SSD"), priced per GiB-month.

Scheduling and licence wording (DWS, Calendar Mode, "Reserved ...", sole
tenancy, custom shapes, virtual workstations) marks SKUs that price no
machine part here; they are left out without a word. A GPU SKU, or the core
or RAM of an accelerator family (A*, G*), that these rules cannot place is
`Unplaced`: the run names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Wording of SKUs that are not a machine part's list rate.
NOT_PARTS = (
    "dws ",
    "calendar mode",
    "sole tenancy",
    "custom ",
    "virtual workstation",
    "licens",
    "premium",
    "vm state",
    "extended memory",
)
_PLACE = re.compile(r"^(?P<what>.+?)(?: (?:running )?in (?P<place>.+?))?(?: for [135] years?)?$")
_GPU_MODEL = re.compile(r"\b(?P<model>gb200|b200|b300|h200|h100|a100|l4|t4|v100|p100|p4|k80|rtx (?:pro )?6000)\b")
_MEMORY = re.compile(r"\b(?P<gb>\d+) ?gb\b")
_SLICE = re.compile(r"\(\d+ gpu slice\)")
_PART = re.compile(r"^(?:(?P<family>.+?) )?(?:instance )?(?P<resource>core|cpu|ram)$")
_LOCAL_SSD = re.compile(r"^(?:ssd backed local storage|local ssd)$")
# Families of accelerator-optimized machines: a core or RAM SKU of one we do not know is worth a word.
_ACCELERATOR_FAMILY = re.compile(r"^[ag]\d")


@dataclass(frozen=True)
class Reading:
    """One SKU read: `kind` gpu, cpu, ram or ssd; `name` the accelerator
    (nvidia-h100-mega-80gb), the core/RAM family (a3plus) or `local`."""

    kind: str
    name: str
    spot: bool
    commitment: bool
    inclusive: bool = False  # a GPU slice: the machine's whole price per GPU


@dataclass(frozen=True)
class Unplaced:
    """A GPU SKU, or an accelerator family's core or RAM SKU, read but not placed."""

    what: str  # the description without its price-model and place wording
    why: str


def accelerator(what: str) -> str | None:
    """The accelerator name of a GPU description, by rule; None if it names none."""
    found = _GPU_MODEL.search(what)
    if not found:
        return None
    model = found.group("model")
    memory = _MEMORY.search(what)
    gb = memory.group("gb") if memory else ""
    if model == "a100":
        return "nvidia-a100-80gb" if gb == "80" else "nvidia-tesla-a100"
    if model == "h100":
        return "nvidia-h100-mega-80gb" if re.search(r"\b(mega|plus)\b", what) else "nvidia-h100-80gb"
    if model.startswith("rtx"):
        return "nvidia-rtx-pro-6000"
    return {
        "h200": "nvidia-h200-141gb",
        "t4": "nvidia-tesla-t4",
        "v100": "nvidia-tesla-v100",
        "p4": "nvidia-tesla-p4",
        "p100": "nvidia-tesla-p100",
        "k80": "nvidia-tesla-k80",
    }.get(model, f"nvidia-{model}")


def family_of(words: str) -> str:
    """'A3 Ultra' and 'A3Ultra' -> a3ultra; 'N1 Predefined' and '' (N1's commitments) -> n1."""
    words = words.removesuffix(" predefined")
    return words.replace(" ", "") or "n1"


def read(description: str, group: str) -> Reading | Unplaced | None:
    """What part a SKU prices; Unplaced when it names a GPU or an accelerator
    family we cannot place; None for every other SKU."""
    text = " ".join(description.lower().split())
    if text.startswith("reserved ") or any(marker in text for marker in NOT_PARTS):
        return None
    commitment = text.startswith(("commitment v1: ", "commitment: "))
    text = text.split(": ", 1)[1] if commitment else text
    spot = text.startswith(("spot preemptible ", "preemptible ")) or " attached to spot preemptible vms" in text
    text = text.removeprefix("spot preemptible ").removeprefix("preemptible ")
    text = text.replace(" attached to spot preemptible vms", "")
    found = _PLACE.match(text)
    what = found.group("what") if found else text
    if group == "LocalSSD":
        return Reading("ssd", "local", spot, commitment) if _LOCAL_SSD.match(what) else None
    if group == "GPU":
        name = accelerator(what)
        if name is None:
            return Unplaced(what, "no GPU model we know in its description")
        return Reading("gpu", name, spot, commitment, inclusive=bool(_SLICE.search(what)))
    part = _PART.match(what)
    if part is None:
        return None
    family = family_of(part.group("family") or "")
    kind = "ram" if part.group("resource") == "ram" else "cpu"
    return Reading(kind, family, spot, commitment)


def accelerator_family(family: str) -> bool:
    return bool(_ACCELERATOR_FAMILY.match(family))
