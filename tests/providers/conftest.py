"""Shared fixture for provider tests: the local wire server (tests/providers/wire_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from providers.wire_server import WireServer


@pytest.fixture
def srv() -> Iterator[WireServer]:
    """A running OpenAI/Anthropic wire-protocol server on 127.0.0.1."""
    with WireServer() as server:
        yield server
