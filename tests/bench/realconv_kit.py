"""A tiny labelled corpus in the realconv format, written for tests (not from the corpus)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def turn(role: str, text: str, label: str | None = None, rule: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"role": role, "text": text}
    if label:
        out.update(label=label, rule=rule)
    return out


SESSIONS: list[dict[str, Any]] = [
    {
        "session_id": "s1",
        "split": "test",
        "source": {"repo": "example/one", "license": "MIT"},
        "turns": [
            turn("user", "Add a retry to the upload script.", "task_request"),
            turn("assistant", "I added a retry loop around the upload call."),
            turn(
                "user",
                "From now on, always run the linter before you commit anything.",
                "standing_correction",
                "Run the linter before committing.",
            ),
            turn("assistant", "Understood, I ran the linter and committed."),
            turn("user", "Rename the variable on line 12 to count.", "one_off_fix"),
        ],
    },
    {
        "session_id": "s2",
        "split": "test",
        "source": {"repo": "example/two", "license": "MIT"},
        "turns": [
            turn("user", "Write a changelog entry for the release.", "task_request"),
            turn("assistant", "Here is the entry."),
            turn("user", "Thanks, looks good.", "acceptance"),
        ],
    },
]


def write_corpus(folder: Path, sessions: list[dict[str, Any]] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(s) for s in (SESSIONS if sessions is None else sessions)]
    (folder / "tiny.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder
