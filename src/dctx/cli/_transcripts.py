"""`dctx capture --from CLIENT [PATH]`: an agent client's own transcripts, only what is new."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from dctx.cli import _common as c
from dctx.cli._capture_report import capture_summary, print_capture


def capture_from(
    cfg: c.Settings,
    client: str,
    paths: list[Path],
    *,
    actor: str | None,
    skill: str | None,
    review: bool,
    llm: str | None,
    skip_malformed: bool,
    as_json: bool,
) -> None:
    """Capture what is new in a client's transcripts, with a progress bar on a terminal."""
    with (
        c.closing(c.open_memory(cfg, review=review, llm=llm or None)) as mem,
        Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=c.err_console(),
            transient=True,
            disable=as_json or not c.err_console().is_terminal,
        ) as progress,
    ):
        task = progress.add_task(f"reading {client} transcripts", total=None)

        def advance(path: Path, done: int, total: int) -> None:
            progress.update(task, total=total, completed=done, description=f"{client}: {path.name}")

        report = mem.capture_transcripts(
            client,
            *paths,
            actor=actor,
            skill=skill,
            skip_malformed=skip_malformed,
            progress=advance,
        )
    if as_json:
        out: dict[str, Any] = {
            "client": report.client,
            "roots": report.roots,
            "transcripts": report.files,
            "transcripts_with_new": report.changed,
            **capture_summary(report.captures),
            "skipped": [{"file": f, "error": e} for f, e in report.skipped],
            "notes": report.notes,
        }
        c.print_json(out)
        return
    console = c.console()
    where = ", ".join(report.roots)
    console.print(
        f"Read {report.files} {client} transcript{'s' if report.files != 1 else ''} in {where}: "
        f"{report.changed} with something new.",
        markup=False,
    )
    if report.captures:
        print_capture(console, report.captures, files=report.changed)
    else:
        console.print("Nothing new since the last run.")
    for file, error in report.skipped:
        console.print(f"  skipped {file}: {error}", markup=False)
    for note in report.notes:
        console.print(f"  {note}", markup=False)


__all__ = ["capture_from"]
