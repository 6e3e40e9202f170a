"""`dctx capture`: learn rules from trace files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from dctx.capture.parse import load_sessions
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

    Every file is read and checked first, then all are captured in one transaction: if any
    message is malformed, the error names the file, session, message index and field, and
    nothing is written.

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
    with c.closing(c.open_memory(cfg, review=review, llm=llm or None)) as mem:
        loaded: list[tuple[Path, list[Any]]] = []
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=c.err_console(),
            transient=True,
            disable=as_json or not c.err_console().is_terminal,
        ) as progress:
            task = progress.add_task("reading", total=len(files))
            for path in files:
                progress.update(task, description=f"reading {path.name}")
                loaded.append(
                    (path, load_sessions(path, actor=actor, skill=skill, namespace=cfg.namespace))
                )
                progress.advance(task)
        # every file is parsed and checked before the one capture (and its transaction) starts
        report = mem.capture_sessions([s for _, sessions in loaded for s in sessions])
    _print(loaded, report, as_json=as_json)


def _print(files: list[tuple[Path, list[Any]]], rep: Any, *, as_json: bool) -> None:
    added: list[Rule] = list(rep.added)
    changed: list[Rule] = list(rep.changed)
    total = {
        key: getattr(rep, key)
        for key in ("sessions", "messages", "corrections", "withdrawals", "tool_signals")
    }
    usage: UsageTotals = rep.usage
    if as_json:
        c.print_json(
            {
                "files": [
                    {
                        "file": str(p),
                        "sessions": len(sessions),
                        "messages": sum(len(s.messages) for s in sessions),
                    }
                    for p, sessions in files
                ],
                **total,
                "added": [r.to_dict() for r in added],
                "changed": [r.to_dict() for r in changed],
                "log": list(rep.log),
                "usage": usage.to_dict(),
            }
        )
        return
    out = c.console()
    out.print(
        f"Captured {total['sessions']} sessions ({total['messages']} messages) from "
        f"{len(files)} file{'s' if len(files) != 1 else ''}: "
        f"{total['corrections']} corrections, {total['withdrawals']} withdrawals, "
        f"{total['tool_signals']} tool-call patterns."
    )
    if usage.llm_calls or usage.cache_hits or usage.embedding_tokens:
        out.print(_usage_line(usage), markup=False)
    if added:
        print_rules(out, added, f"Learned {len(added)} new rules:")
    if changed:
        print_rules(out, changed, f"Changed {len(changed)} existing rules:")
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
