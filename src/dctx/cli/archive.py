"""`dctx rules archive`: retire rules by an explicit command, never silently."""

from __future__ import annotations

from typing import Annotated

import typer

from dctx.cli import _common as c
from dctx.cli._outcomes import DaysOption


def archive(
    ctx: typer.Context,
    rule_ids: Annotated[
        list[str] | None,
        typer.Argument(help="Rule ids to archive (or --stale).", show_default=False),
    ] = None,
    stale: Annotated[
        bool, typer.Option("--stale", help="Archive every rule `dctx rules --stale` lists.")
    ] = False,
    days: DaysOption = None,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", envvar="DCTX_YES", help="Archive --stale rules, no prompt."),
    ] = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Archive rules: kept with their history, never injected, `dctx rules enable ID` brings
    one back. Each change is a rule event saying why (for --stale: its last delivery).

    Examples:

        dctx rules archive rule_1a2b3c4d5e6f7a8b

        dctx rules archive --stale --days 60 --yes
    """
    if bool(rule_ids) == stale:
        raise c.fail("name the rule ids to archive, or pass --stale (not both)")
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        if stale:
            pending = mem.stale(days=days)
            if not pending:
                c.console().print(f"No stale rules in namespace {cfg.namespace!r}.")
                return
            if not yes:
                typer.confirm(
                    f"Archive {len(pending)} stale rule(s) in namespace {cfg.namespace!r}?",
                    abort=True,
                )
            done = mem.archive_stale(days=days)
        else:
            done = mem.archive(list(rule_ids or []))
    for rule in done:
        c.console().print(f"{rule.id}: {rule.status.value}  RULE: {rule.text}", markup=False)


__all__ = ["archive"]
