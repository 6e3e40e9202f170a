"""Fixtures for the DC-Bench tests."""

from __future__ import annotations

import pytest

from bench.benchkit import scenario_dict
from dctx.bench.schema import Scenario
from dctx.providers.base import Embedder
from dctx.providers.hashing import HashingEmbedder


@pytest.fixture
def scenario() -> Scenario:
    return Scenario.model_validate(scenario_dict())


@pytest.fixture(scope="session")
def hashing() -> Embedder:
    """The shipped lexical embedder: fast, deterministic, offline."""
    return HashingEmbedder()
