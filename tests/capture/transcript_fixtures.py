"""Where the real transcript fixtures are (tests/fixtures/transcripts, see SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code"
CODEX = TRANSCRIPTS / "codex" / "sessions"
AIDER = TRANSCRIPTS / "aider"


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
