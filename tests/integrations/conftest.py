"""Fixtures for the agent-loop integrations: a seeded Memory, a wire server, the examples."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dctx.memory import Memory
from providers.wire_server import WireServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))

import _demo  # noqa: E402


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
def seeded(mem: Memory) -> Memory:
    """A memory that learned the demo's earlier sessions (actor ana, skill analyst)."""
    for conversation_id, messages in _demo.SEED:
        mem.capture(messages, actor="ana", skill="analyst", conversation_id=conversation_id)
    return mem
