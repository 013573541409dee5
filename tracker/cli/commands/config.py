"""`gpu-tracker config show`: the configuration in force, secrets masked."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from tracker.cli.state import state

config_app = typer.Typer(
    help="Inspect the configuration.\n\nExample: gpu-tracker config show --json", no_args_is_help=True
)


@config_app.command("show")
def show(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of an annotated listing.")] = False,
) -> None:
    """Print the configuration in force (defaults included), secrets masked.

    Example: gpu-tracker config show --json
    """
    st = state(ctx)
    config = st.config
    config.need()  # the whole configuration: a part set aside is an error here
    from tracker.config.masking import masked

    data = masked(config)
    if as_json:
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return
    print(f"# file: {config.path or '(none: defaults)'}")
    print(f"# store: {st.store_label()}")
    _print_toml(data)


def _print_toml(data: dict[str, Any], prefix: str = "") -> None:
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    if prefix and scalars:
        print(f"\n[{prefix}]")
    for key, value in scalars.items():
        if value is not None:
            print(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    for key, value in tables.items():
        _print_toml(value, f"{prefix}.{key}" if prefix else key)


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
