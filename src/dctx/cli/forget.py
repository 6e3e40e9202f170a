"""`dctx forget`: delete everything derived from one actor."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from dctx.cli import _common as c


def forget(
    ctx: typer.Context,
    actor: Annotated[str, typer.Option(envvar="DCTX_ACTOR", help="The actor to forget.")],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", envvar="DCTX_YES", help="Do not ask for confirmation.")
    ] = False,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Delete every session, decision node, piece of evidence and rule derived from an actor
    in a namespace, and remove them from the supporters of shared rules. Prints the rows
    deleted per table. An actor nothing was learned from is not an error (forgetting is
    idempotent): the command says that nothing matched, exits 0, and --json has
    "matched": false.

    Examples:

        dctx forget --actor alice

        dctx forget --actor alice --namespace acme --yes --json
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    if not yes:
        typer.confirm(
            f"Forget everything learned from {actor!r} in namespace {cfg.namespace!r} "
            f"({cfg.db})? This cannot be undone.",
            abort=True,
        )
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        counts = mem.forget_actor(actor, namespace=cfg.namespace)
    matched = any(counts.values())
    if as_json:
        c.print_json(
            {"actor": actor, "namespace": cfg.namespace, "matched": matched, "deleted": counts}
        )
        return
    if not matched:
        c.console().print(
            f"Nothing matched actor {actor!r} in namespace {cfg.namespace!r}: 0 rows deleted. "
            "See who is known with: dctx rules --json"
        )
        return
    table = Table(title=f"Forgot {actor!r} in {cfg.namespace!r}")
    table.add_column("table")
    table.add_column("rows deleted", justify="right")
    for name, count in counts.items():
        table.add_row(name, str(count))
    c.console().print(table)
