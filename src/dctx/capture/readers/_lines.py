"""JSON Lines for transcript readers: each object with its 1-based line number.

A transcript that is still being written may end in a half-written line; that last line is
left for the next run instead of failing. Any other line that is not a JSON object is a
`TraceFormatError` naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dctx.errors import TraceFormatError


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"cannot read the file: {exc}", file=str(path)) from exc


def json_lines(path: Path, text: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL transcript."""
    text = read_text(path) if text is None else text
    lines = text.split("\n")
    last = len(lines) - 1
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            if n == last:  # no newline yet: the client is still writing this line
                return
            raise TraceFormatError(f"invalid JSON: {exc}", file=str(path), line=n + 1) from exc
        if not isinstance(obj, dict):
            raise TraceFormatError(
                f"a transcript line must be a JSON object, got {type(obj).__name__}",
                file=str(path),
                line=n + 1,
            )
        yield n + 1, obj


def bad(reason: str, path: Path, line: int, field: str | None = None) -> TraceFormatError:
    return TraceFormatError(reason, file=str(path), line=line, field=field)


__all__ = ["bad", "json_lines", "read_text"]
