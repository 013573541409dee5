"""The `gpu-tracker` command line.

Exit codes: 0 success; 1 a failed run, or a user error with a one-line
message; 2 bad usage. Data goes to stdout, messages to stderr.
"""

from __future__ import annotations

import inspect
import logging
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from tracker import __version__
from tracker.cli.output import stderr
from tracker.cli.state import STORE_IN_USE, WARNINGS, State
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
    from tracker.cli.commands import (
        alerts,
        benchmarks,
        compare,
        config,
        crawl,
        daemon,
        data,
        query,
        recommend,
        report,
    )

    crawl.register(app)
    query.register(app)
    config.register(app)
    daemon.register(app)
    compare.register(app)
    data.register(app)
    report.register(app)
    alerts.register(app)
    query.register_offers(app)
    recommend.register(app)
    benchmarks.register(app)


_register()


# A command of the tree Typer builds: duck-typed, as in tracker/cli/reference.py
# (Typer vendors its own click, whose classes are not `click`'s nor public).
Command = Any


def _commands(command: Command) -> list[Command]:
    found = [command]
    for sub in getattr(command, "commands", {}).values():
        found += _commands(sub)
    return found


def command() -> Command:
    """The command tree, its help made safe to print: help goes through rich
    markup, which would swallow `[daemon]` or `[[channel]]`, so brackets are
    escaped; and a command's summary in its group's list is its whole first
    paragraph on one line, never cut at a line break of the docstring."""
    root = typer.main.get_command(app)
    for cmd in _commands(root):
        if cmd.help:
            first, _, rest = inspect.cleandoc(cmd.help).partition("\n\n")
            first = escape(" ".join(first.split()))
            cmd.help = first + (f"\n\n{escape(rest)}" if rest else "")
            cmd.short_help = first
        for param in cmd.params:
            if getattr(param, "help", None):
                param.help = escape(param.help)
    return root


def main(argv: list[str] | None = None) -> int:
    """Console entry point: every error becomes one line and an exit code."""
    WARNINGS.clear()
    STORE_IN_USE.clear()
    try:
        return _main(argv)
    finally:
        _warn_config()


def _warn_config() -> None:
    """A part of the configuration set aside, and not needed by the command that ran: said once."""
    for problem in dict.fromkeys(WARNINGS):
        stderr.print(
            f"[yellow]warning:[/yellow] {escape(problem)} (commands that use this part of the configuration stop)",
            highlight=False,
            soft_wrap=True,
        )
    WARNINGS.clear()


def _click(name: str) -> tuple[type[BaseException], ...]:
    """Upstream click's exception class `name`, where click is loaded: a
    Typer that vendors its own click never imports it (importing it anyway
    cost every command 80 ms), and nothing raises what was never imported;
    a Typer built on it has loaded it before this module asks."""
    click = sys.modules.get("click")
    return (getattr(click.exceptions, name),) if click is not None else ()


_EXIT: tuple[type[BaseException], ...] = (typer.Exit, *_click("Exit"))
_ABORT: tuple[type[BaseException], ...] = (typer.Abort, *_click("Abort"))
_USAGE: tuple[type[BaseException], ...] = (typer.TyperException, *_click("ClickException"))


def _main(argv: list[str] | None) -> int:
    debug = "--debug" in (argv if argv is not None else sys.argv)
    try:
        # Not standalone, click returns the code of a `typer.Exit` (the
        # daemon's) instead of raising it: kept, never dropped for 0.
        code = command().main(args=argv, prog_name="gpu-tracker", standalone_mode=False)
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    except _EXIT as exc:
        return int(getattr(exc, "exit_code", 1))
    except _ABORT:
        stderr.print("aborted")
        return 130
    except _USAGE as exc:
        # Usage errors carry exit code 2, other click errors 1.
        exc.show()  # type: ignore[attr-defined]  # Typer's exceptions are its own click's, which show()
        return int(getattr(exc, "exit_code", 1))
    except TrackerError as exc:
        if str(exc) in WARNINGS:
            WARNINGS.remove(str(exc))  # said once, as the error
        if debug:
            traceback.print_exc()
        stderr.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        stderr.print("interrupted")
        return 130
    except Exception as exc:
        if not _store_error(exc):
            return _internal_error(exc, debug)
        if debug:
            traceback.print_exc()
        orig = getattr(exc, "orig", None) or exc
        reason = str(orig).splitlines()[0]
        where = f" at {STORE_IN_USE[-1]}" if STORE_IN_USE else ""
        message = f"the store{where} failed: {reason}"
        if "malformed" in reason and STORE_IN_USE:  # SQLite's SQLITE_CORRUPT
            from db.store.engine import damaged_message

            message = damaged_message(STORE_IN_USE[-1], reason)
        stderr.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
        return 1
    return 0


def _store_error(exc: Exception) -> bool:
    """An error of the store: through SQLAlchemy, or of the driver itself
    (`db.store.reads.reader`). Each loads only with the store; an error of it means it is loaded."""
    kinds = [
        getattr(sys.modules.get(module), name, None)
        for module, name in (("sqlalchemy.exc", "SQLAlchemyError"), ("sqlite3", "Error"), ("psycopg", "Error"))
    ]
    return any(kind is not None and isinstance(exc, kind) for kind in kinds)


def _internal_error(exc: Exception, debug: bool) -> int:
    """A bug of ours: still one line unless --debug."""
    if debug:
        traceback.print_exc()
    stderr.print(
        f"[red]internal error:[/red] {type(exc).__name__}: {escape(str(exc))} (run with --debug for details)",
        highlight=False,
        soft_wrap=True,
    )
    return 1


def run() -> None:
    sys.exit(main())
