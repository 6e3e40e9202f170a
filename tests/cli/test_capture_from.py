"""`dctx capture --from CLIENT [PATH]`: end to end on copies of the real transcript fixtures."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from dctx.capture.readers import get_reader
from dctx.capture.transcripts import settled
from dctx.store.registry import open_store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
_WHO = {"actor": "ana", "skill": "claude-code", "namespace": "default"}


def _rows(db: Path) -> dict[str, int]:
    store = open_store(str(db))
    try:
        return store.count_rows()
    finally:
        store.close()


def test_capture_from_codex_then_a_rerun_is_a_no_op(
    cli: Callable[..., Result], db: Path, tmp_path: Path
) -> None:
    root = shutil.copytree(FIXTURES / "codex", tmp_path / "codex")
    first = cli("capture", "--from", "codex", str(root), "--actor", "ana", "--json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["client"], report["transcripts"], report["transcripts_with_new"]) == (
        "codex", 4, 4,
    )  # fmt: skip
    assert report["sessions"] == 4 and report["added"]
    assert {r["actor"] for r in report["added"]} == {"ana"}
    assert {r["scope"]["skill"] for r in report["added"]} == {"codex"}
    rows = _rows(db)
    again = cli("capture", "--from", "codex", str(root), "--actor", "ana")
    assert again.exit_code == 0, again.output
    assert "Read 4 codex transcripts" in again.stdout and "0 with something new" in again.stdout
    assert "Nothing new since the last run." in again.stdout
    assert _rows(db) == rows


def test_capture_from_claude_code_prints_what_it_read(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    root = shutil.copytree(FIXTURES / "claude-code", tmp_path / "projects")
    result = cli("capture", "--from", "claude-code", str(root))
    assert result.exit_code == 0, result.output
    reader = get_reader("claude-code")
    sessions = [s for f in reader.find(root) for s in reader.read(f, **_WHO)]
    # every message, less a last reply still waiting for tool results (the trimmed session's
    # three Task calls have none in the file; a later run captures them)
    messages = sum(settled(s.messages) for s in sessions)
    assert messages < sum(len(s.messages) for s in sessions)
    assert f"Read {len(sessions)} claude-code transcripts" in result.stdout
    assert f"Captured {len(sessions)} sessions ({messages} messages)" in result.stdout


def test_a_malformed_transcript_is_an_error_naming_file_and_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    bad = tmp_path / "p" / "s.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n{oops\n\n')
    result = cli("capture", "--from", "claude-code", str(tmp_path))
    assert result.exit_code == 2
    assert f"file {bad}, line 2" in result.stderr
    skipped = cli("capture", "--from", "claude-code", str(tmp_path), "--skip-malformed", "--json")
    assert skipped.exit_code == 0, skipped.output
    assert [s["file"] for s in json.loads(skipped.stdout)["skipped"]] == [str(bad)]


def test_usage_errors_name_the_fix(cli: Callable[..., Result], tmp_path: Path) -> None:
    unknown = cli("capture", "--from", "cursor")
    assert unknown.exit_code == 2 and "known clients: aider, claude-code, codex" in unknown.stderr
    missing = cli("capture", "--from", "aider", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "dctx capture --from aider PATH" in missing.stderr
    nothing = cli("capture")
    assert nothing.exit_code == 2 and "--from CLIENT" in nothing.stderr


def test_help_teaches_with_examples(cli: Callable[..., Result]) -> None:
    result = cli("capture", "--help")
    assert result.exit_code == 0
    for example in ("dctx capture --from claude-code", "dctx capture --from codex",
                    "dctx capture --from aider"):  # fmt: skip
        assert example in result.stdout
    assert "only what is new since the last run" in " ".join(result.stdout.split())
