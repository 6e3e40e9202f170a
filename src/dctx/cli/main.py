"""The `dctx` command line: nouns as subcommands, --json on every read command, every option
also from a DCTX_* environment variable, errors as one line naming the fix (exit 2: fix your
input; exit 1: something failed at run time; DCTX_DEBUG=1 shows the traceback).

    dctx demo                                    the whole job on bundled data, offline
    dctx capture sessions.jsonl                  learn rules from trace files
    dctx rules [show|edit|disable|enable|approve|reject|archive|delete|export|import|explain]
    dctx rules --flagged / --stale               rules to review / rules no run was given
    dctx health                                  the rulebook's health on one screen
    dctx roles [set|reset]                       who may teach the agent (role policy)
    dctx review CONV "TEXT" --at N --by NAME     correct a captured transcript after the fact
    dctx inject --actor A --skill S -q QUERY     what a run would be handed
    dctx forget --actor A                        delete everything derived from an actor
    dctx migrate / dctx copy SRC DST             upgrade a schema / move a memory between stores
    dctx reembed --embedder E                    switch the store to another embedder
    dctx serve / dctx mcp                        the HTTP API / the MCP server
    dctx bench [perf]                            DC-Bench and the performance benchmark
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from dctx import __version__
from dctx.cli import _common as c
from dctx.cli import roles as roles_cli
from dctx.cli import rules as rules_cli
from dctx.cli.capture import capture
from dctx.cli.copy import copy
from dctx.cli.demo import demo
from dctx.cli.forget import forget
from dctx.cli.health import health
from dctx.cli.inject import inject
from dctx.cli.mcp_cmd import mcp
from dctx.cli.migrate import migrate
from dctx.cli.perf import perf_command
from dctx.cli.reembed import reembed_command
from dctx.cli.serve import serve

log = logging.getLogger("dctx")

app = typer.Typer(
    name="dctx",
    cls=c.DctxGroup,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        c.console().print(f"dctx {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the dctx version and exit.",
        ),
    ] = False,
) -> None:
    """Decision Context: persistent behavioral memory for tool-using LLM agents.

    Learns from human corrections and tool-call failures in agent traces, compiles them into
    short RULE directives, and delivers each at the decision point where it applies.

    Start with:  dctx demo

    Then:  dctx capture my_sessions.jsonl && dctx rules

    --db, --embedder and --namespace may be given here or after any command.
    """
    c.remember(ctx, db, embedder, namespace)


@app.command("version")
def version(as_json: c.JsonOption = False) -> None:
    """Print the dctx version. Example: dctx version --json"""
    if as_json:
        c.print_json({"version": __version__})
    else:
        c.console().print(f"dctx {__version__}")


app.command("capture")(capture)
app.command("inject")(inject)
app.command("forget")(forget)
app.command("health")(health)
app.command("demo")(demo)
app.command("migrate")(migrate)
app.command("copy")(copy)
app.command("reembed")(reembed_command)
app.command("serve")(serve)
app.command("mcp")(mcp)
app.add_typer(rules_cli.app, name="rules")
app.add_typer(roles_cli.app, name="roles")
app.command("review")(roles_cli.review)


def _bench_app() -> typer.Typer:
    """DC-Bench's sub-app with `perf` added; `perf` alone if DC-Bench cannot be imported."""
    try:
        from dctx.bench.cli import bench_app
    except Exception as exc:  # a broken optional part must not take the whole CLI down
        log.debug("dctx bench unavailable: %s", exc)
        bench_app = typer.Typer(
            help="Benchmarks (DC-Bench could not be loaded; only perf is available).",
            no_args_is_help=True,
        )
    bench_app.command("perf")(perf_command)
    return bench_app


app.add_typer(_bench_app(), name="bench")


def main() -> None:  # pragma: no cover - the console script calls `app` directly
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
