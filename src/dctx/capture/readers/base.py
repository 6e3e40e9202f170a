"""What a transcript reader is: one agent client's files on disk -> dctx `Session`s.

Each reader is one module (`claude_code.py`, `codex.py`, `aider.py`) with one job: know where
its client keeps transcripts, find them, and turn one file into sessions. It keeps the client's
own signals as the client wrote them (an interrupt marker, a tool error flag, a rejected call)
and leaves cleaning to the capture layer. A reader never decides what a user turn means.

`Message.index` of a transcript message is the 1-based line of the file it came from (for
aider: the line its turn starts on), so errors and provenance point at what the user can open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from dctx.models import Session


@runtime_checkable
class TranscriptReader(Protocol):
    """Reads one agent client's transcripts. `name` is also the default skill of its sessions."""

    name: str
    summary: str  # one line for `--help`: what it reads and where

    def default_root(self) -> Path:
        """Where the client keeps its transcripts on this machine (read when called)."""
        ...

    def find(self, root: Path) -> list[Path]:
        """Transcript files under `root` (or `root` itself if it is one), sorted."""
        ...

    def read(self, path: Path, *, actor: str, skill: str, namespace: str) -> list[Session]:
        """Every session in one file, in file order. Raises `TraceFormatError` naming the
        file and line of anything malformed."""
        ...


__all__ = ["TranscriptReader"]
