"""`dctx bench real`: the real-conversation benchmark (see evaluate.py)."""

from __future__ import annotations

import enum
import json
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dctx.bench.cli_errors import fail
from dctx.bench.realconv.corpus import DEFAULT_DATA
from dctx.bench.realconv.evaluate import RealConvReport, evaluate
from dctx.capture.reading.base import TurnClassifier
from dctx.errors import DctxError
from dctx.providers.base import LLM


class ReaderChoice(enum.StrEnum):
    learned = "learned"
    heuristic = "heuristic"


def _reader(choice: ReaderChoice) -> TurnClassifier:
    if choice is ReaderChoice.heuristic:
        from dctx.capture.reading.heuristic import HeuristicTurnClassifier

        return HeuristicTurnClassifier()
    from dctx.capture.reading.learned import LearnedTurnClassifier

    return LearnedTurnClassifier()


def real(
    data: Annotated[
        Path, typer.Option("--data", help="Folder of labelled sessions (*.jsonl).")
    ] = DEFAULT_DATA,
    split: Annotated[str, typer.Option("--split", help="train, dev or test.")] = "test",
    reader: Annotated[
        ReaderChoice, typer.Option("--reader", help="Which turn reader capture uses.")
    ] = ReaderChoice.learned,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
    show_false: Annotated[
        int, typer.Option("--show-false", help="Print up to N stored rules from wrong turns.")
    ] = 0,
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm",
            help="Capture with this LLM as `dctx capture --llm` does (provider:model, e.g. "
            "openai:gpt-4o-mini, anthropic:claude-3-5-haiku-latest, or "
            "openai-compatible:MODEL@http://host:port/v1): it decides every turn the reader "
            "does not rule out, and its reading stands. Its calls and tokens are reported.",
        ),
    ] = None,
) -> None:
    """Capture precision and recall on labelled real conversations, and a replay.

    Every session of the split is captured, oldest first, into one fresh memory; before each
    session a run starts with its first request. Reported: detection of lasting turns
    (standing corrections and withdrawals), the precision and recall of stored rules, and
    the stage-1 units a new session receives. Detection is the reader's own; stored rules
    are what capture kept, after the LLM (with --llm) had its say.

    Example: dctx bench real --split test --show-false 10

    With an LLM (answers are cached in the benchmark's memory only, so every run asks again):
    dctx bench real --split dev --llm openai:gpt-4o-mini
    """
    from dctx.providers.llm import resolve_llm

    try:
        report = _run(data, split, _reader(reader), resolve_llm(llm) if llm else None)
    except DctxError as exc:  # a bad --llm spec fails before any work; a bad corpus file too
        raise fail(exc) from None
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    typer.echo(render(report))
    for text in report.false_rules[:show_false]:
        typer.echo(f"  false: {text}")


def _run(data: Path, split: str, chosen: TurnClassifier, model: LLM | None) -> RealConvReport:
    from dctx.memory import Memory
    from dctx.providers.usage import metering

    with tempfile.TemporaryDirectory() as tmp, metering() as meter:

        def factory() -> Memory:
            return Memory(Path(tmp) / "real.db", reader=chosen, llm=model)

        with Progress(
            TextColumn("capturing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task("sessions", total=None)
            report = evaluate(
                factory,
                data=data,
                split=split,
                reader=chosen,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
        if model is not None:
            report.llm = model.id
            report.llm_usage = meter.totals().to_dict()
    return report


def render(r: RealConvReport) -> str:
    dc, da = r.detection_candidate, r.detection_active
    return "\n".join(
        [
            f"real conversations, split {r.split}, reader {r.reader}: {r.sessions} sessions, "
            f"{r.user_turns} user turns, {r.lasting_turns} lasting (labelled)",
            "| measure | value |",
            "| --- | --- |",
            f"| detection P / R (candidate band) | {dc.precision:.2f} / {dc.recall:.2f} |",
            f"| detection P / R (active band) | {da.precision:.2f} / {da.recall:.2f} |",
            f"| rules stored (active + candidate) | {r.rules_stored} "
            f"({r.rules_active} + {r.rules_candidate}) |",
            f"| stored-rule precision (any / active) | {r.stored_precision:.2f} / "
            f"{r.active_precision:.2f} |",
            f"| stored rules whose text means the labelled rule | {r.stored_right_text} |",
            f"| recall of lasting turns (any / active) | {r.recall_any:.2f} / "
            f"{r.recall_active:.2f} |",
            f"| stage-1 units per new session | {r.units_per_session:.2f} "
            f"({r.sessions_with_units} of {r.sessions} sessions got any) |",
            f"| rulebook at the end (active / candidate) | {r.rulebook_active} / "
            f"{r.rulebook_candidate} |",
            *_llm_row(r),
        ]
    )


def _llm_row(r: RealConvReport) -> list[str]:
    if not r.llm:
        return []
    u = r.llm_usage
    return [
        f"| LLM {r.llm} | {u.get('llm_calls', 0)} calls, "
        f"{u.get('llm_input_tokens', 0) + u.get('llm_output_tokens', 0)} tokens, "
        f"{u.get('fallbacks', 0)} fallbacks to the offline path |"
    ]
