"""`dctx capture`: learn rules from trace files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from dctx.capture.parse import load_sessions
from dctx.capture.readers import READERS
from dctx.cli import _common as c
from dctx.cli._capture_report import capture_summary, print_capture
from dctx.cli._transcripts import capture_from
from dctx.errors import ConfigError

_CLIENTS = ", ".join(READERS)


def capture(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Trace files: JSONL (one session per line), JSON or YAML. With --from: where "
            "the client's transcripts are (a folder or a file; default: the client's own).",
            show_default=False,
        ),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="CLIENT",
            envvar="DCTX_FROM",
            help=f"Read an agent client's own transcripts: {_CLIENTS}. Only what is new since "
            "the last run is captured.",
            show_default=False,
        ),
    ] = None,
    skip_malformed: Annotated[
        bool,
        typer.Option(
            "--skip-malformed",
            envvar="DCTX_SKIP_MALFORMED",
            help="With --from: list a malformed transcript and go on (default: stop at it; "
            "the files before it stay captured).",
        ),
    ] = False,
    actor: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_ACTOR",
            help="Actor for sessions that do not name one (default: anonymous; with --from: "
            "your OS user name).",
            show_default=False,
        ),
    ] = None,
    skill: Annotated[
        str | None,
        typer.Option(
            envvar="DCTX_SKILL",
            help="Agent skill for sessions that do not name one (default: default; with "
            "--from: the client name, e.g. claude-code).",
            show_default=False,
        ),
    ] = None,
    speaker_role: Annotated[
        str | None,
        typer.Option(
            "--speaker-role",
            envvar="DCTX_SPEAKER_ROLE",
            help="Who the users of sessions that do not say are: operator, end_user or "
            "reviewer (default: the role policy's, see dctx roles; tau-bench files: end_user).",
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
    """Capture trace files, or an agent client's own transcripts, and learn rules from their
    human corrections and tool failures.

    Every trace file is read and checked first, then all are captured in one transaction: if
    any message is malformed, the error names the file, session, message index and field, and
    nothing is written.

    With --from CLIENT, dctx finds the client's transcripts (claude-code: ~/.claude/projects,
    codex: ~/.codex/sessions, aider: .aider.chat.history.md under PATH or the current folder)
    and captures only what is new since the last run: a re-run adds nothing. Each file is
    captured in its own transaction. The actor is your OS user name, the skill the client.

    A session record looks like (OpenAI or Anthropic messages):

        {"conversation_id": "s1", "actor": "alice", "skill": "analyst",
        "timestamp": "2026-03-02T09:00:00Z", "messages": [{"role": "user", ...}, ...]}

    Examples:

        dctx capture sessions.jsonl

        dctx capture --actor alice --skill financial_analyst traces/*.json

        DCTX_DB=team.db dctx capture --review monday.jsonl

        dctx capture --llm openai:gpt-4o-mini sessions.jsonl

        dctx capture --speaker-role end_user support_chats.jsonl   # customers: no rules

        dctx capture --from claude-code                 # all of ~/.claude/projects

        dctx capture --from claude-code ~/.claude/projects/-home-ana-src-app

        dctx capture --from codex --actor ana --json

        dctx capture --from aider ~/src                 # every .aider.chat.history.md below
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    if source is not None and speaker_role is not None:
        raise ConfigError("--speaker-role is for trace files; a client's transcripts are yours")
    if source is not None:
        capture_from(
            cfg, source, files or [], actor=actor, skill=skill, review=review, llm=llm,
            skip_malformed=skip_malformed, as_json=as_json,
        )  # fmt: skip
        return
    if not files:
        raise ConfigError(
            "name the trace files to capture, or read a client's transcripts with "
            f"--from CLIENT ({_CLIENTS})"
        )
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
                sessions = load_sessions(
                    path,
                    actor=actor,
                    skill=skill,
                    namespace=cfg.namespace,
                    speaker_role=speaker_role,
                )
                loaded.append((path, sessions))
                progress.advance(task)
        # every file is parsed and checked before the one capture (and its transaction) starts
        report = mem.capture_sessions([s for _, sessions in loaded for s in sessions])
    _print(loaded, report, as_json=as_json)


def _print(files: list[tuple[Path, list[Any]]], rep: Any, *, as_json: bool) -> None:
    if as_json:
        per_file = [
            {
                "file": str(p),
                "sessions": len(sessions),
                "messages": sum(len(s.messages) for s in sessions),
            }
            for p, sessions in files
        ]
        c.print_json({"files": per_file, **capture_summary([rep])})
        return
    print_capture(c.console(), [rep], files=len(files))
