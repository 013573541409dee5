"""The newest revisions of the migrations, read from their files as text.

Both ways of opening a store look here: `db.store.engine` before it asks
Alembic to upgrade, and the ORM-free `db.store.reads.reader` to know a store is
current without loading Alembic or SQLAlchemy at all (loading Alembic takes
longer than most commands).
"""

from __future__ import annotations

import re
from pathlib import Path

MIGRATIONS_DIR = Path(__file__).parents[1] / "migrations"
# `revision = '0006'` and `down_revision = '0005'` in a migration file.
_REVISION_LINE = re.compile(r"^(revision|down_revision)\s*=\s*(.+?)\s*$", re.MULTILINE)


def _revisions() -> tuple[set[str], set[str]]:
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        fields = dict(_REVISION_LINE.findall(path.read_text(encoding="utf-8")))
        revisions.add(fields.get("revision", "").strip("'\""))
        parents.add(fields.get("down_revision", "None").strip("'\""))
    return revisions, parents


def script_heads() -> set[str]:
    """The revisions no other revision builds on. A wrong reading only
    means Alembic is asked (`tests/cli/test_startup.py` holds the two equal)."""
    revisions, parents = _revisions()
    return revisions - parents


def script_revisions() -> set[str]:
    """Every revision this version knows: a store at another one was
    upgraded by a newer gpu-tracker."""
    return _revisions()[0]


def newest_revision() -> str:
    """The newest revision this version knows, by number (the migrations
    form branches: `script_heads` has several)."""
    return max(script_revisions())
