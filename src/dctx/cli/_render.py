"""Rich renderings of rules and units shared by several commands."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dctx.models import Rule, TriggerKind, Unit

STATUS_STYLE = {
    "active": "green",
    "draft": "yellow",
    "disabled": "red",
    "superseded": "dim",
    "withdrawn": "dim",
    "archived": "dim",
    "candidate": "yellow",
}


def trigger_short(rule: Rule) -> str:
    trig = rule.trigger
    if trig.kind is TriggerKind.TOOL:
        after = f" after {trig.after_tool}" if trig.after_tool else ""
        return f"tool: {trig.tool}{after}"
    if trig.kind is TriggerKind.DATA:
        if trig.numeric is not None:
            num = trig.numeric
            return f"data: {'/'.join(num.terms)} {num.op} {num.value:g}"
        if trig.excluded:
            return f"data: {', '.join(trig.keywords) or 'a field'} not {'/'.join(trig.excluded)}"
        if trig.predicate is not None:
            return f"data: {trig.text}"
        return f"data: {', '.join(trig.keywords)}"
    return trig.kind.value


def scope_short(rule: Rule) -> str:
    actor = rule.scope.actor or "everyone"
    skill = rule.scope.skill or "any skill"
    subject = f" / {rule.scope.subject}" if rule.scope.subject else ""
    return f"{actor} / {skill}{subject}"


def rules_table(rules: Sequence[Rule], *, title: str | None = None) -> Table:
    """One row per rule; the rule text gets the width that is left."""
    table = Table(title=title, box=box.SIMPLE_HEAD, expand=False, title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("type", no_wrap=True)
    table.add_column("trigger", max_width=28, overflow="fold")
    table.add_column("actor / skill", max_width=28, overflow="fold")
    table.add_column("sup", justify="right", no_wrap=True)
    table.add_column("rule", min_width=30, ratio=1)
    for rule in rules:
        status = rule.status.value
        shown = f"{status} (flagged)" if rule.flagged_at else status  # dctx rules --flagged
        table.add_row(
            rule.id,
            Text(shown, style=STATUS_STYLE.get(status, "")),
            rule.type.value,
            Text(trigger_short(rule)),
            Text(scope_short(rule)),
            str(rule.support),
            Text(rule.text),
        )
    return table


def rule_block(rule: Rule) -> Text:
    """A rule as two lines (for narrow output): the directive, then what routes it."""
    origin = f"said by {rule.actor}" if rule.actor else "learned from tool calls"
    text = Text("  RULE: ", style="bold")
    text.append(rule.text)
    text.append(
        f"\n    {rule.type.value} | trigger {trigger_short(rule)} | for {scope_short(rule)} | "
        f"{origin} | {rule.id}",
        style="dim",
    )
    return text


def print_rules(out: Console, rules: Sequence[Rule], title: str) -> None:
    """A table on wide terminals, two lines per rule on narrow ones."""
    if out.width >= 110:
        out.print(rules_table(rules, title=title))
        return
    out.print(title)
    for rule in rules:
        out.print(rule_block(rule))


def unit_lines(units: Sequence[Unit]) -> list[str]:
    return [u.text for u in units]
