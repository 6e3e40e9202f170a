"""`dctx inject`: what a run would be handed, before it starts and after each tool step."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape

from dctx.cli import _common as c
from dctx.cli._steps import parse_step, parse_tools
from dctx.models import to_dict


def inject(
    ctx: typer.Context,
    actor: Annotated[str, typer.Option(envvar="DCTX_ACTOR", help="Who runs the agent.")],
    skill: Annotated[str, typer.Option(envvar="DCTX_SKILL", help="The agent skill.")],
    query: Annotated[
        str, typer.Option("--query", "-q", envvar="DCTX_QUERY", help="The run's user query.")
    ],
    tools: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_TOOLS",
            help="Comma-separated tools offered to the run (default: unknown, all count).",
            show_default=False,
        ),
    ] = None,
    step: Annotated[
        list[str] | None,
        typer.Option(
            help="A tool step 'TOOL JSON_ARGS RESULT' (repeatable, in order). JSON_ARGS may "
            "be omitted; write {} before a JSON result when the call had no arguments.",
            show_default=False,
        ),
    ] = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Show what dctx injects into a run: the stage-1 messages before the first model call,
    then the stage-2 rules each tool step triggers. Nothing is written.

    Examples:

        dctx inject --actor kenji --skill financial_analyst -q "Summarize Ridgeway's growth"

        dctx inject --actor kenji --skill financial_analyst -q "Summarize Ridgeway's growth"
        --tools get_financials,get_segments
        --step 'get_segments {"company": "Ridgeway"} {"segments": [{"name": "Defense"}]}'
    """
    steps = [parse_step(s, i) for i, s in enumerate(step or [], start=1)]
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        run = mem.start(  # a preview: no run is given anything, nothing recorded
            actor=actor, skill=skill, query=query, tools=parse_tools(tools), record=False
        )
        stage1 = {"messages": run.messages, "units": [to_dict(u) for u in run.units]}
        points: list[dict[str, Any]] = []
        for call, result in steps:
            units = run.observe(call, result)
            points.append(
                {
                    "decision_point": run.decision_point,
                    "tool": call["name"],
                    "arguments": call["arguments"],
                    "result": result,
                    "units": [to_dict(u) for u in units],
                }
            )
        system = run.system
    if as_json:
        c.print_json({"stage1": stage1, "steps": points, "system": system})
        return
    out = c.console()
    out.print("[bold]Stage 1[/bold] (decision point 0, before the first model call):")
    if not stage1["messages"]:
        out.print("  silent: no rule applies before the run")
    for msg in stage1["messages"]:
        out.print(
            f"  [cyan]{msg['role']}[/cyan]: " + escape(msg["content"]).replace("\n", "\n    ")
        )
    for point in points:
        shown = point["result"] if len(point["result"]) <= 80 else point["result"][:77] + "..."
        out.print(
            f"\n[bold]Step {point['decision_point']}[/bold] {escape(point['tool'])}"
            f"({escape(_args(point['arguments']))}) -> {escape(shown)}"
        )
        if not point["units"]:
            out.print("  silent: nothing new applies")
        for unit in point["units"]:
            out.print(f"  [magenta]{unit['channel']}[/magenta]: {escape(unit['text'])}")
    if system:
        out.print("\n[bold]System prompt block after the last step:[/bold]")
        out.print(escape(system))


def _args(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in arguments.items())
