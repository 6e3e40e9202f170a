"""Print a demo result so a person can follow what happened and why."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from dctx.cli._render import rule_block
from dctx.demo.runner import DemoResult, rule_of


def show(result: DemoResult, out: Console) -> None:
    out.print(
        Panel.fit(
            "dctx demo: behavioral memory for a financial-analyst agent\n"
            f"offline; embedder {result.embedder}; database {result.db}",
            border_style="cyan",
        )
    )
    cap = result.captured
    out.print(
        f"\n[bold]1. Capture[/bold]: {cap['sessions']} earlier sessions ({cap['messages']} "
        f"messages) -> {cap['corrections']} human corrections, {cap['tool_signals']} "
        "tool-call patterns"
    )
    for s in result.sessions:
        out.print(
            f"  {escape(s['conversation_id'])}  {escape(s['actor'])}: "
            f'"{escape(s["query"])}"  tools: {", ".join(s["tool_calls"])}'
        )
    rules = [rule_of(r) for r in result.rules]
    out.print(f"\n[bold]2. Compiled rules[/bold] ({len(rules)})")
    for rule in rules:
        out.print(rule_block(rule))
    rp = result.replay
    out.print(
        f"\n[bold]3. A new run about another company[/bold]: {escape(rp['actor'])} asks "
        f'"{escape(rp["query"])}"\n   tools offered: {", ".join(rp["tools"])}'
    )
    for point in result.points:
        _point(point, out)
    delivered = sum(len(p.delivered) for p in result.points)
    silent = len(rules) - delivered
    out.print(
        f"\n[bold]4. Result[/bold]: {delivered} of {len(rules)} rules delivered, each at the "
        "decision point where its trigger was met and nowhere else"
        + (f"; {silent} stayed silent (reasons above)." if silent else ".")
    )
    if result.stage1_messages:
        out.print("\n[dim]Stage 1 as prepended to the conversation (user channel):[/dim]")
        for msg in result.stage1_messages:
            out.print(
                f"  [cyan]{msg['role']}[/cyan]: " + escape(msg["content"]).replace("\n", "\n    ")
            )
    if result.system:
        out.print("[dim]Stage 2 as added to the system prompt by the last step:[/dim]")
        out.print("  " + escape(result.system).replace("\n", "\n  "))
    out.print(f"\n[dim]ran in {result.seconds:.1f} s[/dim]")


def _point(point: Any, out: Console) -> None:
    if point.decision_point == 0:
        head = "DP0  before the first model call (stage 1, user channel)"
    else:
        call = point.call or {}
        args = json.dumps(call.get("arguments", {}), ensure_ascii=False)
        result = point.result or ""
        shown = result if len(result) <= 90 else result[:87] + "..."
        head = (
            f"DP{point.decision_point}  {call.get('name')}({args}) returned {shown}\n"
            "     (stage 2, system channel)"
        )
    out.print(f"\n  [bold]{escape(head)}[/bold]")
    if not point.delivered:
        out.print("    [dim]silent: nothing new applies here[/dim]")
    for item in point.delivered:
        out.print(f"    [green]delivered[/green] RULE: {escape(item['text'])}")
        out.print(f"      why: {escape(item['kind'])} trigger, {escape(item['why'])}")
    for item in point.silent:
        out.print(
            f"    [dim]waiting   {escape(_short(item['text']))}\n"
            f"      why not yet: {escape(item['kind'])} trigger, {escape(item['why'])}[/dim]"
        )


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
