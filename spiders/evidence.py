"""What verified a source's reading of its provider: the real thing it was
checked against, shown to users in the providers table (docs/providers.md)
and by `gpu-tracker sources`.

Each source of the registry (tracker/sources/) declares its own:
`Source(..., evidence=Evidence(...))`. The kinds, strongest first:

- `capture`: a real copy of the provider's page or API answer (a public
  repository's test data or cache, or our own recording), replayed by a
  test; `date` is the day the copy was taken, `ref` names it (repository,
  commit, path).
- `example`: the provider's documented example answer (API reference).
- `sdk`: the provider's official SDK's response model (field names and types).
- `assumed`: none of these; the shape comes from our own reading or from a
  third party's parser only. A source resting on `assumed` alone is not
  crawled by default (a test holds that).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EvidenceKind = Literal["capture", "example", "sdk", "assumed"]
KINDS: tuple[EvidenceKind, ...] = ("capture", "example", "sdk", "assumed")


@dataclass(frozen=True)
class Evidence:
    kind: EvidenceKind
    # What it is, in a few words, with where it is: "the pricing page as
    # served, example/repo@1a2b3c4 tests/data/coreweave.html"; for `sdk`
    # the package and model; for `assumed` why nothing better exists.
    ref: str
    # The day the real copy was taken (YYYY-MM-DD); "" when not known or
    # not a capture.
    date: str = ""
    # Where the replay test and the fixture's provenance note are.
    fixture: str = ""

    def label(self) -> str:
        """The table's words: 'real capture (2026-08-03)', 'documented example',
        'SDK model', 'assumed'."""
        if self.kind == "capture":
            return f"real capture ({self.date})" if self.date else "real capture"
        return {"example": "documented example", "sdk": "SDK model", "assumed": "assumed"}[self.kind]
