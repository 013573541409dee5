"""The card of a spot pool whose interruption band got worse
(`spot_risk_worse`): "p5.48xlarge us-east-1 spot: interruptions <5% → 10-15%"."""

from __future__ import annotations

from db.schema import Change

_ARROW = " → "


def moved(change: Change) -> str:
    """'interruptions <5% → 10-15%'."""
    return f"interruptions {change.detail.get('old_band', '?')}{_ARROW}{change.detail.get('new_band', '?')}"


def headline(change: Change, title: str) -> tuple[str, str]:
    """(headline, subject): the pool and its move."""
    subject = f"{change.instance_type} {change.region} spot: {moved(change)}"
    return f"{title} ({change.provider}): {subject}", subject


def facts(change: Change) -> list[tuple[str, str]]:
    out = [
        ("Interruptions", f"{moved(change)[len('interruptions ') :]} of instances reclaimed a month"),
        ("Where", f"{change.provider} {change.region}, {change.os or 'linux'}"),
    ]
    if change.gpu_model:
        count = f"{change.gpu_count.normalize():f} × " if change.gpu_count else ""
        out.append(("GPU", f"{count}{change.gpu_model}"))
    if change.detail.get("savings_percent"):
        out.append(("Savings", f"{change.detail['savings_percent']}% below on demand"))
    out.append(("Source", change.source or change.provider))
    return out
