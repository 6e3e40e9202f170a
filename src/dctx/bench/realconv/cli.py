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

from dctx.bench.realconv.corpus import DEFAULT_DATA
from dctx.bench.realconv.evaluate import RealConvReport, evaluate
from dctx.capture.reading.base import TurnClassifier


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
) -> None:
    """Capture precision and recall on labelled real conversations, and a replay.

    Every session of the split is captured, oldest first, into one fresh memory; before each
    session a run starts with its first request. Reported: detection of lasting turns
    (standing corrections and withdrawals), the precision and recall of stored rules, and
    the stage-1 units a new session receives.

    Example: dctx bench real --split test --show-false 10
    """
    from dctx.memory import Memory

    chosen = _reader(reader)
    with tempfile.TemporaryDirectory() as tmp:

        def factory() -> Memory:
            return Memory(Path(tmp) / "real.db", reader=chosen)

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
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    typer.echo(render(report))
    for text in report.false_rules[:show_false]:
        typer.echo(f"  false: {text}")


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
        ]
    )
