"""The CLI reference (docs/cli.md), generated from every command's `--help`.

`python -m tracker.cli.reference > docs/cli.md` rewrites it; a test fails
when the committed page differs from what this prints.
"""

from __future__ import annotations

from typing import Any

WIDTH = 100


def _commands(group: Any, ctx: Any, path: list[str]) -> list[list[str]]:
    """Every command path under a group. Typer's groups are duck-typed: it
    vendors its own click, so they are not `click.Group` instances."""
    found = []
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        found.append([*path, name])
        if hasattr(command, "list_commands"):
            child = command.context_class(command, info_name=name, parent=ctx)
            found.extend(_commands(command, child, [*path, name]))
    return found


def _help(path: list[str]) -> str:
    import typer.rich_utils
    from typer.testing import CliRunner

    from tracker.cli import app

    # The help is rendered for a fixed, plain terminal so that the page does
    # not depend on who generated it.
    typer.rich_utils.MAX_WIDTH = WIDTH
    typer.rich_utils.COLOR_SYSTEM = None
    typer.rich_utils.FORCE_TERMINAL = False
    result = CliRunner().invoke(app, [*path, "--help"], env={"NO_COLOR": "1", "COLUMNS": str(WIDTH)})
    return "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")


def reference() -> str:
    import typer

    from tracker.cli import app

    root = typer.main.get_command(app)
    parts = [
        "# CLI reference\n",
        "Generated from `--help` by `python -m tracker.cli.reference > docs/cli.md`; do not edit by hand.\n",
        "## gpu-tracker\n",
        f"```text\n{_help([])}\n```\n",
    ]
    for path in _commands(root, root.context_class(root, info_name="gpu-tracker"), []):
        parts.append(f"## gpu-tracker {' '.join(path)}\n")
        parts.append(f"```text\n{_help(path)}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    print(reference(), end="")
