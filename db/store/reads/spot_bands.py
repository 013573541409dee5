"""The spot pools' interruption bands now (db/spot_risk.py): the open row of
each pool, with when it was first and last read."""

from __future__ import annotations

from typing import Any

from db.store.reads.connection import Db, utc_time


def open_bands(db: Db) -> list[dict[str, Any]]:
    """Every open band: provider, instance_type, region, os, band, rank,
    savings_percent, source, source_url, valid_from and last_seen (aware UTC)."""
    rows = db.rows(
        "SELECT provider, instance_type, region, os, band, rank, savings_percent, source, source_url,"
        " valid_from, last_seen FROM spot_bands WHERE valid_to IS NULL ORDER BY id"
    )
    for row in rows:
        row["valid_from"] = utc_time(row["valid_from"])
        row["last_seen"] = utc_time(row["last_seen"])
    return rows
