"""`dctx bench losses`: where the memory lost each rubric item it failed (bench/losses.py)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from dctx.bench.cli_errors import fail
from dctx.bench.embedcache import CachedEmbedder
from dctx.bench.loader import load_scenarios
from dctx.bench.losses import ItemLoss, Stage, tally, trace_losses
from dctx.bench.options import DimensionOpt, EmbedderOpt, IdOpt, ScenariosOpt
from dctx.bench.progress import progress_bar
from dctx.errors import ConfigError, DctxError
from dctx.providers.base import Embedder

_err = Console(stderr=True)

# what each stage means, for the table's legend
_MEANING = {
    Stage.NEVER_SAID: "no seed turn says the item's words (implicit, or said otherwise)",
    Stage.TURN_NOT_READ: "a turn says them; no rule came from that turn",
    Stage.WORDS_LOST: "a rule came from that turn, without the item's words",
    Stage.RULE_NOT_ACTIVE: "a rule says them and is not active (candidate, disabled)",
    Stage.NOT_DELIVERED: "an active rule says them; no unit delivered it",
    Stage.DELIVERED_LATE: "delivered after the item's deadline",
    Stage.FORBIDDEN_DELIVERED: "negative item: a unit said what it forbids",
}


def losses(
    scenarios: ScenariosOpt = None,
    dimension: DimensionOpt = None,
    scenario_id: IdOpt = None,
    approach: Annotated[
        str, typer.Option("--approach", "-a", help="An approach built on dctx's Memory.")
    ] = "forge_dc",
    embedder: EmbedderOpt = "auto",
    show: Annotated[
        int, typer.Option("--show", help="List this many lost items (0: only the table).")
    ] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Where the memory lost each rubric item it failed, stage by stage (delivery mode).

    A failed item is placed at the first stage its words go missing: never said in the seed,
    said in a turn no rule came from, lost from that turn's rule, held in a rule that is not
    active, held by an active rule never delivered, or delivered too late. Read off the
    item's own patterns, so it says where to look, not why.

    Example: dctx bench losses -s benchmarks/holdout --show 10
    """
    try:
        loaded = load_scenarios(scenarios, dimensions=dimension, ids=scenario_id)
        if not loaded:
            raise ConfigError("no scenario matched the selection (check --dimension / --id)")
        from dctx.providers.embedders import get_embedder

        shared: Embedder = CachedEmbedder(get_embedder(embedder))
        found: list[ItemLoss] = []
        progress = progress_bar("losses", _err)
        with progress:
            task = progress.add_task("", total=len(loaded))
            for ls in loaded:
                found.extend(
                    trace_losses(ls.scenario, embedder_factory=lambda: shared, approach=approach)
                )
                progress.update(task, advance=1, description=ls.scenario.id)
    except DctxError as exc:
        raise fail(exc) from None
    counts = tally(found)
    if as_json:
        doc = {"scenarios": len(loaded), "stages": counts, "items": [x.to_dict() for x in found]}
        typer.echo(json.dumps(doc, indent=2))
        return
    typer.echo(f"{len(found)} item(s) failed in {len(loaded)} scenario(s), by stage:")
    typer.echo(f"  {'stage':<20} {'items':>5} {'weight':>6}  meaning")
    for stage in Stage:
        if stage.value in counts:
            c = counts[stage.value]
            typer.echo(f"  {stage.value:<20} {c['items']:>5} {c['weight']:>6}  {_MEANING[stage]}")
    for x in found[: max(show, 0)]:
        typer.echo(f"\n{x.stage.value}: {x.scenario} / {x.item} (weight {x.weight})")
        if x.turn:
            typer.echo(f"  turn: {x.turn[:200]}")
        for rule in x.rules:
            typer.echo(f"  rule: {rule[:200]}")
