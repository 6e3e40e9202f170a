"""Transcript readers: agent clients' own files on disk -> dctx sessions.

`READERS` is the registry, plain data: client name -> reader. Add a client by adding a module
with a `READER` (see `base.TranscriptReader`) and one entry here.

    from dctx.capture.readers import get_reader
    reader = get_reader("claude-code")
    for path in reader.find(reader.default_root()):
        sessions = reader.read(path, actor="ana", skill=reader.name, namespace="default")
"""

from __future__ import annotations

from dctx.capture.readers import aider, claude_code, codex
from dctx.capture.readers.base import TranscriptReader
from dctx.errors import ConfigError

READERS: dict[str, TranscriptReader] = {
    claude_code.READER.name: claude_code.READER,
    codex.READER.name: codex.READER,
    aider.READER.name: aider.READER,
}


def get_reader(name: str) -> TranscriptReader:
    """The reader for a client name; a `ConfigError` listing the known ones otherwise."""
    try:
        return READERS[name]
    except KeyError:
        known = ", ".join(sorted(READERS))
        raise ConfigError(f"unknown transcript client {name!r}; known clients: {known}") from None


__all__ = ["READERS", "TranscriptReader", "get_reader"]
