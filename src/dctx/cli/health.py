"""`dctx health`: audit a rulebook in a minute."""

from __future__ import annotations

import typer
from rich import box
from rich.table import Table

from dctx.cli import _common as c
from dctx.cli._outcomes import DaysOption
from dctx.cli._render import rules_table
from dctx.models import Rule


def health(
    ctx: typer.Context,
    days: DaysOption = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """The rulebook's health: rules per status (active, candidate, flagged, archived ...),
    rules delivered and never triggered, stale ones, outcomes recorded, and duplicate or
    near-duplicate pairs (the similarity maintenance merges by).

    Examples:

        dctx health

        dctx health --days 30 --json
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        report = mem.health(days=days)
        by_id: dict[str, Rule] = {r.id: r for r in mem.rules()}
    if as_json:
        c.print_json(report.to_dict())
        return
    out = c.console()
    counts = report.counts
    out.print(f"[bold]Rulebook health, namespace {report.namespace!r}[/bold]")
    out.print(
        "  " + "  ".join(f"{k} {counts[k]}" for k in ("active", "candidate", "flagged", "archived"))
        + "  |  " + "  ".join(
            f"{k} {n}" for k, n in counts.items()
            if k not in ("active", "candidate", "flagged", "archived") and n
        ),
        markup=False,
    )  # fmt: skip
    outcomes = ", ".join(f"{k} {n}" for k, n in report.outcomes.items() if n) or "none recorded"
    out.print(f"  delivered at least once: {report.delivered}   outcomes: {outcomes}", markup=False)
    sections: list[tuple[str, list[Rule]]] = [
        ("Flagged: their mistake kept recurring after delivery", report.flagged),
        ("Active, never triggered", report.never_triggered),
        (f"Stale: not delivered for {report.stale_days} days", [s.rule for s in report.stale]),
    ]
    for title, rules in sections:
        if rules:
            out.print(rules_table(rules, title=f"{title} ({len(rules)})"))
    for title, pairs in (
        ("Duplicates", report.duplicates),
        ("Near-duplicates", report.near_duplicates),
    ):
        if not pairs:
            continue
        table = Table(title=f"{title} ({len(pairs)})", box=box.SIMPLE_HEAD, title_justify="left")
        for col in ("cos", "same scope", "rule a", "rule b"):
            table.add_column(col)
        for p in pairs:
            a, b = by_id.get(p.a), by_id.get(p.b)
            table.add_row(
                f"{p.similarity:.2f}",
                "yes" if p.same_scope else "no",
                f"{p.a}: {a.text if a else '?'}",
                f"{p.b}: {b.text if b else '?'}",
            )
        out.print(table)
    if not (report.flagged or report.never_triggered or report.stale):
        out.print("  nothing flagged, idle or stale")


__all__ = ["health"]
