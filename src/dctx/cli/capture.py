"""`dctx capture`: learn rules from trace files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from dctx.cli import _common as c
from dctx.cli._render import print_rules
from dctx.errors import ConfigError
from dctx.models import Rule
from dctx.providers.usage import UsageTotals


def capture(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Trace files: JSONL (one session per line), JSON or YAML.", show_default=False
        ),
    ],
    actor: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_ACTOR",
            help="Actor for sessions that do not name one (default: anonymous).",
            show_default=False,
        ),
    ] = None,
    skill: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_SKILL",
            help="Agent skill for sessions that do not name one (default: default).",
            show_default=False,
        ),
    ] = None,
    review: Annotated[
        bool,
        typer.Option(
            envvar="DCTX_REVIEW",
            help="Add new rules as drafts; approve them with: dctx rules approve ID",
        ),
    ] = False,
    llm: c.LlmOption = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Capture trace files and learn rules from their human corrections and tool failures.

    All files are captured in one transaction: if any message is malformed, the error names
    the file, session, message index and field, and nothing is written.

    A session record looks like (OpenAI or Anthropic messages):

        {"conversation_id": "s1", "actor": "alice", "skill": "analyst",
        "timestamp": "2026-03-02T09:00:00Z", "messages": [{"role": "user", ...}, ...]}

    Examples:

        dctx capture sessions.jsonl

        dctx capture --actor alice --skill financial_analyst traces/*.json

        DCTX_DB=team.db dctx capture --review monday.jsonl

        dctx capture --llm openai:gpt-4o-mini sessions.jsonl
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    for path in files:
        if not path.is_file():
            raise ConfigError(f"trace file not found: {path}")
    reports: list[tuple[Path, Any]] = []
    with (
        c.closing(c.open_memory(cfg, review=review, llm=llm or None)) as mem,
        mem.store.transaction(),
        Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=c.err_console(),
            transient=True,
            disable=as_json or not c.err_console().is_terminal,
        ) as progress,
    ):
        task = progress.add_task("capturing", total=len(files))
        for path in files:
            progress.update(task, description=f"capturing {path.name}")
            report = mem.capture_file(path, actor=actor, skill=skill, namespace=cfg.namespace)
            reports.append((path, report))
            progress.advance(task)
    _print(reports, as_json=as_json)


def _print(reports: list[tuple[Path, Any]], *, as_json: bool) -> None:
    added: list[Rule] = [r for _, rep in reports for r in rep.added]
    changed: list[Rule] = [r for _, rep in reports for r in rep.changed]
    total = {
        key: sum(getattr(rep, key) for _, rep in reports)
        for key in ("sessions", "messages", "corrections", "withdrawals", "tool_signals")
    }
    usage = sum((rep.usage for _, rep in reports), UsageTotals())
    if as_json:
        c.print_json(
            {
                "files": [
                    {"file": str(p), "sessions": rep.sessions, "messages": rep.messages}
                    for p, rep in reports
                ],
                **total,
                "added": [r.to_dict() for r in added],
                "changed": [r.to_dict() for r in changed],
                "log": [line for _, rep in reports for line in rep.log],
                "usage": usage.to_dict(),
            }
        )
        return
    out = c.console()
    out.print(
        f"Captured {total['sessions']} sessions ({total['messages']} messages) from "
        f"{len(reports)} file{'s' if len(reports) != 1 else ''}: "
        f"{total['corrections']} corrections, {total['withdrawals']} withdrawals, "
        f"{total['tool_signals']} tool-call patterns."
    )
    if usage.llm_calls or usage.cache_hits or usage.embedding_tokens:
        out.print(_usage_line(usage), markup=False)
    if added:
        print_rules(out, added, f"Learned {len(added)} new rules:")
    if changed:
        print_rules(out, changed, f"Changed {len(changed)} existing rules:")
    for _, rep in reports:
        for line in rep.log:
            out.print(f"  {line}", markup=False)
    if not added and not changed:
        out.print("Nothing new to learn from these sessions.")


def _usage_line(u: UsageTotals) -> str:
    """Cost accounting (paper, Table 4): what the LLM and embedder spent on this capture."""
    line = (
        f"LLM: {u.llm_calls} calls, {u.llm_input_tokens:,} input + {u.llm_output_tokens:,} "
        f"output tokens ({u.cache_hits} answers from the cache"
    )
    if u.fallbacks:
        line += f", {u.fallbacks} steps fell back to the deterministic path"
    line += f"); embedding: {u.embedding_tokens:,} tokens."
    return line
