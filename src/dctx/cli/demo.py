"""`dctx demo`: the whole job on bundled data, offline, in a few seconds."""

from __future__ import annotations

from typing import Annotated

import typer

from dctx.cli import _common as c


def demo(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="DCTX_DEMO_DB",
            help="Keep the demo's database at this path (default: a temporary one).",
            show_default=False,
        ),
    ] = None,
    embedder: c.EmbedderOption = None,
    as_json: c.JsonOption = False,
) -> None:
    """Capture three sessions of a financial-analyst agent (human corrections, tool failures),
    print the rules dctx compiled, then replay a run about another company and show, at each
    decision point, which rules were delivered and why.

    Examples:

        dctx demo

        dctx demo --db demo.db && dctx --db demo.db rules
    """
    from dctx.demo.runner import run_demo
    from dctx.demo.show import show

    result = run_demo(db, embedder=embedder)
    if as_json:
        c.print_json(result.to_dict())
        return
    show(result, c.console())
