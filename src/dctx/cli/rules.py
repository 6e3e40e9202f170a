"""`dctx rules`: list, inspect, curate, export and import the rulebook."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from dctx.cli import _common as c
from dctx.cli._outcomes import DaysOption, print_outcomes
from dctx.cli._render import print_rules, scope_short, trigger_short
from dctx.cli._steps import parse_step, parse_tools
from dctx.cli.archive import archive
from dctx.cli.transfer import export_rules, import_rules
from dctx.errors import ConfigError
from dctx.inject.why import Explanation, PointCheck, describe_trigger
from dctx.models import Rule, RuleStatus

app = typer.Typer(
    name="rules",
    no_args_is_help=False,
    invoke_without_command=True,
    help="List, inspect and curate learned rules.",
)

StatusOption = Annotated[
    str | None,
    typer.Option(
        "--status",
        envvar="DCTX_STATUS",
        help=(
            "Only rules with this status: active, draft, candidate, disabled, superseded, "
            "withdrawn, archived."
        ),
        show_default=False,
    ),
]
IdArg = Annotated[str, typer.Argument(help="Rule id (see: dctx rules).", show_default=False)]


def _status(value: str | None) -> RuleStatus | None:
    if value is None:
        return None
    try:
        return RuleStatus(value.strip().lower())
    except ValueError:
        choices = ", ".join(s.value for s in RuleStatus)
        raise ConfigError(f"unknown status {value!r}; choose one of: {choices}") from None


@app.callback()
def rules(
    ctx: typer.Context,
    actor: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_ACTOR", help="Only rules said by this actor.", show_default=False
        ),
    ] = None,
    skill: Annotated[
        str | None,
        typer.Option(envvar="DCTX_SKILL", help="Only rules for this skill.", show_default=False),
    ] = None,
    status: StatusOption = None,
    stale: Annotated[
        bool,
        typer.Option(
            "--stale", help="Only active rules no run was given for --days days (see archive)."
        ),
    ] = False,
    flagged: Annotated[
        bool,
        typer.Option("--flagged", help="Only rules whose mistake kept recurring after delivery."),
    ] = False,
    days: DaysOption = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """List the rules (oldest first), or run one of the subcommands below.

    Examples:

        dctx rules                              # every rule, as a table

        dctx rules --actor alice --status active

        dctx rules --flagged                    # their mistake came back after delivery

        dctx rules --stale --days 30            # not delivered for 30 days

        dctx rules --json | jq '.[].text'

        dctx rules show rule_1a2b3c4d5e6f7a8b   # who said it, when, where, how it did
    """
    c.remember(ctx, db, embedder, namespace)
    if ctx.invoked_subcommand is not None:
        return
    if stale and (flagged or status is not None):
        raise c.fail("--stale lists active rules: leave out --flagged and --status")
    cfg = c.settings(ctx, db, embedder, namespace)
    idle: dict[str, tuple[str | None, float]] = {}
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        if stale:
            items = mem.stale(days=days, actor=actor, skill=skill)
            found = [s.rule for s in items]
            idle = {s.rule.id: (s.last_triggered, s.idle_days) for s in items}
        elif flagged:
            found = mem.flagged(actor=actor, skill=skill)
            if status is not None:
                found = [r for r in found if r.status is _status(status)]
        else:
            found = mem.rules(actor=actor, skill=skill, status=_status(status))
    if as_json:
        rows = [r.to_dict() for r in found]
        for row in rows:
            if row["id"] in idle:
                last, days_idle = idle[row["id"]]
                row["last_triggered"], row["idle_days"] = last, round(days_idle, 1)
        c.print_json(rows)
        return
    what = "stale rules" if stale else "flagged rules" if flagged else "rules"
    if not found:
        hint = "" if stale or flagged else " Learn some with: dctx capture TRACE.jsonl"
        c.console().print(f"No {what} in namespace {cfg.namespace!r}.{hint}")
        return
    print_rules(c.console(), found, f"{len(found)} {what} in namespace {cfg.namespace!r}")


@app.command("show")
def show(
    ctx: typer.Context,
    rule_id: IdArg,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Show one rule and where it came from: who said what, when, in which session and
    message, from which evidence.

    Example:

        dctx rules show rule_1a2b3c4d5e6f7a8b
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        info = mem.explain(rule_id)
    if as_json:
        c.print_json(info)
        return
    _print_provenance(info)


def _print_provenance(info: dict[str, Any]) -> None:
    rule = Rule.from_dict(info["rule"])
    out = c.console()
    out.print(Text(rule.id, style="bold") + Text(f"  RULE: {rule.text}"))
    grid = Table.grid(padding=(0, 2))
    grid.add_row("status", Text(rule.status.value))
    if rule.flagged_at:
        grid.add_row("flagged", Text(f"{rule.flagged_at}: its mistake kept recurring"))
    grid.add_row("type", Text(rule.type.value))
    grid.add_row("trigger", Text(describe_trigger(rule)))
    grid.add_row("scope", Text(scope_short(rule) + f" (namespace {rule.scope.namespace})"))
    grid.add_row("source", Text(rule.source.value))
    grid.add_row("said by", Text(rule.actor or "(learned from tool calls)"))
    if rule.supporters:
        grid.add_row("supporters", Text(", ".join(rule.supporters)))
    grid.add_row("support", Text(str(rule.support)))
    if rule.qualifiers:
        grid.add_row("qualifiers", Text("; ".join(rule.qualifiers)))
    grid.add_row("created", Text(rule.created_at))
    grid.add_row("updated", Text(rule.updated_at))
    out.print(grid)
    out.print("\n[bold]Evidence[/bold]")
    if not info["evidence"]:
        out.print("  (none recorded)")
    for ev in info["evidence"]:
        who = ev.get("actor") or "tool calls"
        where = f"session {ev['conversation_id']}, message {ev['message_index']}"
        if ev.get("source"):
            where += f", file {ev['source']}"
        out.print(f"  [{ev['kind']}] {who} at {ev['timestamp']} ({where})", markup=False)
        out.print(f"    {ev['text']}", markup=False)
    node = info.get("trigger_node")
    if node:
        out.print("\n[bold]Decision point it corrected[/bold]")
        out.print(
            f"  session {node['conversation_id']}, message {node['message_index']} "
            f"({node['kind']}{', tool ' + node['tool'] if node.get('tool') else ''})",
            markup=False,
        )
        out.print(f"    {node['text'][:300]}", markup=False)
    if rule.history:
        out.print("\n[bold]History[/bold]")
        for event in rule.history:
            detail = ", ".join(f"{k}={v}" for k, v in event.items() if k not in ("at", "event"))
            out.print(
                f"  {event.get('at', '?')}  {event.get('event', '?')}  {detail}", markup=False
            )
    print_outcomes(out, info.get("outcomes", []), info.get("outcome_counts", {}))


def _change(
    ctx: typer.Context,
    action: str,
    rule_id: str,
    db: str | None,
    embedder: str | None,
    namespace: str | None,
) -> None:
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        rule: Rule = getattr(mem, action)(rule_id)
    c.console().print(f"{rule.id}: {rule.status.value}  RULE: {rule.text}", markup=False)


@app.command("disable")
def disable(
    ctx: typer.Context,
    rule_id: IdArg,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Switch a rule off (kept, can be enabled again). Example: dctx rules disable RULE_ID"""
    _change(ctx, "disable", rule_id, db, embedder, namespace)


@app.command("enable")
def enable(
    ctx: typer.Context,
    rule_id: IdArg,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Switch a disabled rule back on. Example: dctx rules enable RULE_ID"""
    _change(ctx, "enable", rule_id, db, embedder, namespace)


@app.command("approve")
def approve(
    ctx: typer.Context,
    rule_id: IdArg,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Approve a draft (review mode) or candidate rule so it is injected: dctx rules approve ID"""
    _change(ctx, "approve", rule_id, db, embedder, namespace)


@app.command("reject")
def reject(
    ctx: typer.Context,
    rule_id: IdArg,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Reject a candidate or a draft: it is disabled, never injected, kept with its history.
    List candidates with: dctx rules --status candidate. Example: dctx rules reject RULE_ID"""
    _change(ctx, "reject", rule_id, db, embedder, namespace)


app.command("archive")(archive)


@app.command("delete")
def delete(
    ctx: typer.Context,
    rule_id: IdArg,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Delete a rule with its vectors and edges (its evidence stays). Example:
    dctx rules delete RULE_ID"""
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        mem.delete(rule_id)
    c.console().print(f"deleted {rule_id}")


@app.command("edit")
def edit(
    ctx: typer.Context,
    rule_id: IdArg,
    text: Annotated[
        str | None,
        typer.Argument(help="The new rule text (one imperative sentence).", show_default=False),
    ] = None,
    trigger: Annotated[
        str | None,
        typer.Option(
            "--trigger",
            help="The new trigger: 'always', 'query: TEXT', 'data: CONDITION' or "
            "'tool: NAME [after OTHER]'.",
            show_default=False,
        ),
    ] = None,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Replace a rule's text and/or its trigger; the old ones are kept in its history.

    A data condition is compiled as capture compiles one: a threshold, a negated value, a
    predicate over the items of tool results, or words that must all be seen.

    Examples:

        dctx rules edit rule_1a2b3c4d5e6f7a8b "Put company comparisons in a table."

        dctx rules edit rule_1a2b3c4d5e6f7a8b --trigger "data: a pod is in CrashLoopBackOff"
    """
    if text is None and trigger is None:
        raise ConfigError("nothing to change: pass the new text, --trigger SPEC, or both")
    if text is not None and not text.strip():
        raise ConfigError("the new rule text is empty; pass one imperative sentence")
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        rule = mem.edit(rule_id, text, trigger=trigger)
    c.console().print(f"{rule.id}: RULE: {rule.text}", markup=False)
    if trigger is not None:
        c.console().print(f"trigger: {describe_trigger(rule)}", markup=False)


@app.command("export")
def export(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="Output JSON file ('-' for stdout).")],
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Write every rule of the namespace (all statuses) with its provenance to a JSON file.

    Example:

        dctx rules export rules.json && dctx --db other.db rules import rules.json
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        count = export_rules(mem, file)
    if file != "-":
        c.console().print(f"exported {count} rules to {file}")


@app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="A JSON file written by `dctx rules export`.")],
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Import rules written by `dctx rules export` (validated first; all or nothing). Rules
    with an id already in the database are replaced. Vectors are recomputed with this
    database's embedder.

    Example:

        dctx --db team.db rules import rules.json
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg)) as mem:
        count = import_rules(mem, file)
    c.console().print(f"imported {count} rules from {file}")


@app.command("explain")
def explain(
    ctx: typer.Context,
    rule_id: IdArg,
    query: Annotated[
        str | None,
        typer.Option(
            "--query",
            "-q",
            envvar="DCTX_QUERY",
            help="The run's user query (with --actor and --skill: explain that run).",
            show_default=False,
        ),
    ] = None,
    actor: Annotated[
        str | None,
        typer.Option(envvar="DCTX_ACTOR", help="Who runs the agent.", show_default=False),
    ] = None,
    skill: Annotated[
        str | None,
        typer.Option(envvar="DCTX_SKILL", help="The agent skill.", show_default=False),
    ] = None,
    tools: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_TOOLS",
            help="Comma-separated tools offered to the run.",
            show_default=False,
        ),
    ] = None,
    step: Annotated[
        list[str] | None,
        typer.Option(
            help="A tool step 'TOOL JSON_ARGS RESULT' (repeatable, in order).",
            show_default=False,
        ),
    ] = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Explain a rule: where it came from (as `rules show`); given --actor, how its conflict
    group is resolved for that actor (which rule wins and why: own rule, majority, abstain);
    and, given a run (-q, --actor, --skill), why it would or would not fire in it: scope,
    trigger kind, condition, similarity against the floor, at every decision point. --json
    prints what `Memory.explain` returns (the run's part under "run", the group's under
    "conflict").

    Examples:

        dctx rules explain RULE_ID

        dctx rules explain RULE_ID --actor kenji --skill financial_analyst

        dctx rules explain RULE_ID -q "Summarize Beta's growth" --actor kenji
        --skill financial_analyst

        dctx rules explain RULE_ID -q "Summarize Beta's growth" --actor kenji
        --skill financial_analyst
        --step 'get_segments {"company": "Beta"} {"segments": [{"name": "Cloud"}]}'
    """
    steps = [parse_step(s, i) for i, s in enumerate(step or [], start=1)]
    if query is None and (tools or steps):
        raise c.fail("explaining a run needs its query: add -q/--query (and --actor, --skill)")
    if query is None and skill and not actor:
        raise c.fail("explaining a conflict needs the actor it is resolved for: add --actor")
    if query is not None and not (actor and skill):
        raise c.fail("explaining a run needs --actor and --skill as well as --query")
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        info = mem.explain(
            rule_id,
            query=query,
            actor=actor,
            skill=skill,
            tools=parse_tools(tools) if query is not None else None,
            steps=steps,
        )
    if as_json:
        c.print_json(info)
        return
    _print_provenance(info)
    if "conflict" in info:
        c.console().print(
            Text("Conflict group ", style="bold")
            + Text(f"{info['conflict']['group']} for {info['conflict']['actor']}: ")
            + Text(info["conflict"]["summary"])
        )
    if "run" in info:
        run = dict(info["run"])
        points = [PointCheck(**p) for p in run.pop("points")]
        _print_run(Rule.from_dict(info["rule"]), Explanation(**run, points=points))


def _print_run(rule: Rule, result: Explanation) -> None:
    """The why-it-fired part of `explain`: one row per decision point, then the verdict."""
    out = c.console()
    out.print("\n[bold]In this run[/bold]")
    grid = Table.grid(padding=(0, 2))
    grid.add_row("trigger", Text(f"{trigger_short(rule)}  ({result.trigger})"))
    grid.add_row("scope", Text(f"{result.scope}: {result.scope_note}"))
    out.print(grid)
    table = Table(title="Decision points", box=box.SIMPLE_HEAD, title_justify="left")
    for col in ("dp", "where", "trigger test", "result"):
        table.add_column(col)
    for p in result.points:
        shown = p.status if p.outcome.endswith(p.condition) else p.outcome
        table.add_row(str(p.decision_point), Text(p.where), Text(p.condition), Text(shown))
    out.print(table)
    out.print(Text("Verdict: ", style="bold") + Text(result.verdict))
