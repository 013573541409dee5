"""A fixture README says first what its source rests on (issue 38's house check):
a source with a real copy or a documented answer names it (repository and
commit, as its registry evidence does) and the evidence, before any file of our
own construction; a source without one says so in its first words, that its
files are our own construction, and which evidence that leaves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spiders.evidence import Evidence
from tracker.sources import SOURCES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# The README each source's provenance note is in (alibaba-cn shares alibaba's).
READMES = {
    "coreweave": "coreweave",
    "crusoe": "crusoe",
    "autodl": "autodl",
    "huawei-api": "huawei-api",
    "tencent-api": "tencent-api",
    "alibaba-api": "alibaba-api",
    "alibaba": "alibaba",
    "alibaba-cn": "alibaba",
    "volcengine": "volcengine",
    "volcengine-api": "volcengine-api",
}
# owner/name@commit, as an evidence's ref names a real copy's repository.
REPO_AT = re.compile(r"([\w.-]+/[\w.-]+)@([0-9a-f]{7,40})")


def evidence_of(name: str) -> Evidence:
    evidence = SOURCES[name].evidence
    assert evidence is not None, f"{name}: no evidence declared"
    return evidence


def lead(name: str) -> str:
    """The README's words before its first section heading, on one line, without emphasis."""
    text = (FIXTURES / READMES[name] / "README.md").read_text(encoding="utf-8")
    before = re.split(r"^## ", text, maxsplit=1, flags=re.MULTILINE)[0]
    body = before.split("\n", 1)[1] if before.startswith("# ") else before
    return " ".join(body.replace("**", "").split())


@pytest.mark.parametrize("name", [n for n in READMES if evidence_of(n).kind in ("capture", "example")])
def test_a_readme_leads_with_the_real_copy_its_source_rests_on(name: str) -> None:
    evidence = evidence_of(name)
    words = lead(name)
    assert words.startswith("What "), f"{name}: the README's first words say what the source rests on"
    kind = "real capture" if evidence.kind == "capture" else "documented example"
    assert f"evidence: {kind}" in words.lower(), f"{name}: the lead names its evidence ({kind})"
    named = REPO_AT.findall(evidence.ref)
    assert named, f"{name}: its evidence names the copy's repository and commit"
    for repo, commit in named:
        assert repo in words, f"{name}: the lead names {repo}"
        assert commit in words, f"{name}: the lead gives {repo}'s commit ({commit})"
    assert "tests/spiders/test_" in words, f"{name}: the lead names the test that replays it"
    readme = (FIXTURES / READMES[name] / "README.md").read_text(encoding="utf-8")
    ours = readme.lower().find("our own construction")
    assert ours > readme.find(named[0][0]), f"{name}: what is ours comes after the real copy"


@pytest.mark.parametrize("name", [n for n in READMES if evidence_of(n).kind in ("sdk", "assumed")])
def test_a_readme_without_a_real_copy_says_so_first(name: str) -> None:
    evidence = evidence_of(name)
    words = lead(name)
    assert words.startswith("No real copy of"), f"{name}: the README's first words say no real copy is public"
    assert "searched" in words and "our own construction" in words, name
    label = {"sdk": "SDK model", "assumed": "assumed"}[evidence.kind]
    assert f"Evidence: {label}" in words, f"{name}: the lead gives its evidence ({label})"
