"""What every command shares: options (each with its DCTX_* env var), opening the memory,
JSON output, and turning errors into one line and an exit code.

Configuration is resolved in one place (`settings`): command line > DCTX_* environment
variable > default. Nothing here reads the environment at import time.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup
from typer.exceptions import TyperException

from dctx.errors import (
    DctxError,
    EmbedderMismatchError,
    MissingDependencyError,
    NotFoundError,
    StoreError,
    TraceFormatError,
    UserError,
)

DEFAULT_DB = "dctx.db"
EXIT_USER = 2
EXIT_RUNTIME = 1

# --------------------------------------------------------------------------- shared options

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="DCTX_DB",
        help="Database path or URL (sqlite file, postgresql://...). Default: ./dctx.db",
        show_default=False,
    ),
]
EmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        envvar="DCTX_EMBEDDER",
        help="Embedder: minilm, hashing or auto. Default: the one the database was built with, "
        "else minilm.",
        show_default=False,
    ),
]
NamespaceOption = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        envvar="DCTX_NAMESPACE",
        help="Namespace (tenant). Default: default",
        show_default=False,
    ),
]
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        envvar="DCTX_LLM",
        help="LLM for capture, 'provider:model[@URL]' (e.g. openai:gpt-4o-mini, "
        "anthropic:claude-sonnet-4-5, ollama:llama3.2). Keys come from OPENAI_API_KEY / "
        "ANTHROPIC_API_KEY. Default: none (deterministic capture).",
        show_default=False,
    ),
]
JsonOption = Annotated[
    bool,
    typer.Option("--json", envvar="DCTX_JSON", help="Print machine-readable JSON instead."),
]


@dataclass(slots=True)
class Settings:
    """Where the memory lives and how it embeds; resolved once per command."""

    db: str
    embedder: str | None
    namespace: str


def _from_command_line(ctx: typer.Context | None, name: str) -> bool:
    source = ctx.get_parameter_source(name) if ctx is not None else None
    return source is not None and source.name == "COMMANDLINE"


def remember(
    ctx: typer.Context, db: str | None, embedder: str | None, namespace: str | None
) -> None:
    """A command group keeps the options typed on its own command line for its subcommands."""
    given = {"db": db, "embedder": embedder, "namespace": namespace}
    ctx.obj = {k: v for k, v in given.items() if v is not None and _from_command_line(ctx, k)}


def settings(
    ctx: typer.Context | None,
    db: str | None = None,
    embedder: str | None = None,
    namespace: str | None = None,
) -> Settings:
    """Resolve this command's settings: its own command line, then the enclosing group's
    command line (`dctx rules --db x show ID`), then DCTX_* variables, then defaults."""
    inherited: dict[str, Any] = {}
    walk = ctx.parent if ctx is not None else None
    while walk is not None:
        if isinstance(walk.obj, dict):
            inherited = {**walk.obj, **inherited}
        walk = walk.parent
    own = {"db": db, "embedder": embedder, "namespace": namespace}

    def pick(name: str) -> str | None:
        if own[name] is not None and _from_command_line(ctx, name):
            return own[name]
        value = inherited.get(name) or own[name]
        return str(value) if value is not None else None

    return Settings(
        db=pick("db") or DEFAULT_DB,
        embedder=pick("embedder"),
        namespace=pick("namespace") or "default",
    )


def open_memory(cfg: Settings, *, must_exist: bool = False, **kwargs: Any) -> Any:
    """Open the Memory a command works on. The embedder defaults to the one recorded in the
    store, so a database built with `--embedder hashing` keeps working without the flag.
    With `must_exist` (commands that read or change what is there) a missing database file
    is an error instead of a new empty database."""
    from dctx.memory import Memory
    from dctx.store.registry import open_store, require_existing

    if must_exist:
        require_existing(cfg.db)
    store = open_store(cfg.db)
    try:
        embedder = cfg.embedder or store.embedder_id() or "minilm"
        return Memory(store, embedder=embedder, namespace=cfg.namespace, **kwargs)
    except BaseException:
        store.close()
        raise


# --------------------------------------------------------------------------- output

_console: Console | None = None
_err_console: Console | None = None


def console() -> Console:
    """stdout console; created lazily so CliRunner's redirected streams are picked up."""
    global _console
    if _console is None or _console.file is not sys.stdout:
        _console = Console(file=sys.stdout, highlight=False, soft_wrap=True)
    return _console


def err_console() -> Console:
    global _err_console
    if _err_console is None or _err_console.file is not sys.stderr:
        _err_console = Console(file=sys.stderr, highlight=False, soft_wrap=True)
    return _err_console


def print_json(data: Any) -> None:
    """Plain JSON on stdout (no rich markup, so it pipes into jq)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


# --------------------------------------------------------------------------- errors


def _hint(exc: DctxError) -> str:
    """A short pointer at the fix, for errors whose message does not already name one."""
    if isinstance(exc, MissingDependencyError | EmbedderMismatchError):
        return ""  # their messages carry the exact command
    if isinstance(exc, NotFoundError):
        said = str(exc)
        if "dctx " in said or "rule" not in said:
            return ""  # it names its own fix, or it is not about a rule (a conversation, a run)
        return " (list rule ids with: dctx rules)"
    if isinstance(exc, TraceFormatError):
        return " (nothing was written; fix the trace and run the command again)"
    if isinstance(exc, StoreError):
        return " (check the database path/URL given by --db or DCTX_DB)"
    return ""


def error_line(exc: BaseException) -> str:
    if isinstance(exc, DctxError):
        return f"error: {exc}{_hint(exc)}"
    return f"error: unexpected {type(exc).__name__}: {exc} (set DCTX_DEBUG=1 for the traceback)"


def exit_code(exc: BaseException) -> int:
    return EXIT_USER if isinstance(exc, UserError) else EXIT_RUNTIME


def _debug() -> bool:
    return os.environ.get("DCTX_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


#: Placeholders in --help where the parameter's name alone would not say what to type.
METAVARS = {"db": "PATH|URL", "tools": "TOOL,TOOL", "llm": "PROVIDER:MODEL", "step": "STEP"}


def name_placeholders(command: Any) -> None:
    """Give every parameter without its own metavar a readable one (DB, ACTOR, RULE_ID...)
    instead of the type name, in this command and every subcommand."""
    for param in getattr(command, "params", []):
        if param.metavar is None and param.name and not getattr(param, "is_flag", False):
            param.metavar = METAVARS.get(param.name, param.name.upper())
    for sub in getattr(command, "commands", {}).values():
        name_placeholders(sub)


class DctxGroup(TyperGroup):
    """The root command group: every error below it becomes one line on stderr and an exit
    code (2: the user can fix it, 1: something failed at run time). DCTX_DEBUG=1 adds the
    traceback. Placeholders in --help are named by `name_placeholders`."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        name_placeholders(self)
        return super().main(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):
            raise  # help, usage errors, confirmations: the CLI framework reports them
        except Exception as exc:
            if _debug():
                sys.stderr.write("".join(traceback.format_exception(exc)))
            sys.stderr.write(error_line(exc) + "\n")
            raise typer.Exit(exit_code(exc)) from None


@contextmanager
def closing(mem: Any) -> Iterator[Any]:
    try:
        yield mem
    finally:
        mem.close()


def fail(message: str, code: int = EXIT_USER) -> typer.Exit:
    """Print one error line and return the Exit to raise (`raise fail(...)`)."""
    sys.stderr.write(f"error: {message}\n")
    return typer.Exit(code)
