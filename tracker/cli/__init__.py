"""The `gpu-tracker` command line.

Exit codes: 0 success; 1 a failed run, or a user error with a one-line
message; 2 bad usage. Data goes to stdout, messages to stderr.
"""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path
from typing import Annotated

import click
import sqlalchemy as sa
import typer
from rich.markup import escape

from tracker import __version__
from tracker.cli.output import stderr
from tracker.cli.state import State
from tracker.errors import TrackerError
from tracker.logs import setup_logging

app = typer.Typer(
    name="gpu-tracker",
    help="Watch GPU prices and promotions across clouds, and hear when they change.\n\n"
    "Example: gpu-tracker demo && gpu-tracker prices --gpu A100",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"gpu-tracker {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    home: Annotated[
        Path | None,
        typer.Option(
            help="Data folder (store, runs, config.toml). Default: $GPU_TRACKER_HOME or the user data folder."
        ),
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="Configuration file to use.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details on stderr.")] = False,
    debug: Annotated[bool, typer.Option(help="Show tracebacks for errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Watch GPU prices and promotions across clouds, and hear when they change."""
    setup_logging("text", logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING)
    ctx.obj = State(config_path=config, home=home.expanduser() if home else None, debug=debug)


def _register() -> None:
    from tracker.cli import (
        alert_cmds,
        compare_cmds,
        config_cmds,
        crawl_cmds,
        daemon_cmds,
        data_cmds,
        offer_cmds,
        query_cmds,
        recommend_cmds,
        report_cmds,
    )

    crawl_cmds.register(app)
    query_cmds.register(app)
    config_cmds.register(app)
    daemon_cmds.register(app)
    compare_cmds.register(app)
    data_cmds.register(app)
    report_cmds.register(app)
    alert_cmds.register(app)
    offer_cmds.register(app)
    recommend_cmds.register(app)


_register()


def main(argv: list[str] | None = None) -> int:
    """Console entry point: every error becomes one line and an exit code."""
    debug = "--debug" in (argv if argv is not None else sys.argv)
    try:
        app(args=argv, standalone_mode=False)
    except (typer.Exit, click.exceptions.Exit) as exc:
        return exc.exit_code
    except (typer.Abort, click.exceptions.Abort):
        stderr.print("aborted")
        return 130
    except (typer.TyperException, click.ClickException) as exc:
        # Usage errors carry exit code 2, other click errors 1.
        exc.show()  # type: ignore[union-attr]
        return int(exc.exit_code)  # type: ignore[union-attr]
    except TrackerError as exc:
        if debug:
            traceback.print_exc()
        stderr.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        stderr.print("interrupted")
        return 130
    except sa.exc.SQLAlchemyError as exc:
        if debug:
            traceback.print_exc()
        orig = getattr(exc, "orig", None) or exc
        stderr.print(
            f"[red]error:[/red] the store failed: {escape(str(orig).splitlines()[0])}", highlight=False, soft_wrap=True
        )
        return 1
    except Exception as exc:  # a bug of ours: still one line unless --debug
        if debug:
            traceback.print_exc()
        stderr.print(
            f"[red]internal error:[/red] {type(exc).__name__}: {escape(str(exc))} (run with --debug for details)",
            highlight=False,
            soft_wrap=True,
        )
        return 1
    return 0


def run() -> None:
    sys.exit(main())
