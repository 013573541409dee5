"""A small JSON file where a spider remembers what it discovered (a price
file version, a template code) between runs. The tracker names the file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def read_state(path: str) -> dict[str, Any]:
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no file yet, or a damaged one: discover again
    return data if isinstance(data, dict) else {}


def write_state(path: str, **values: Any) -> None:
    if not path:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = {**read_state(path), **values, "saved_at": datetime.now(UTC).isoformat()}
    tmp = target.with_name(target.name + ".part")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(target)
