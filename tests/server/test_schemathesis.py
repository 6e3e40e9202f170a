"""Property-based API tests: schemathesis generates requests from the OpenAPI schema and checks
that no input makes the server fail (no 5xx) and every response matches the schema. Bounded to
15 valid and 10 invalid examples per operation so the file runs in seconds. Each operation's
strategy is driven by hypothesis directly (schemathesis' pytest fixture loader does not work
with this pytest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks

from dctx.memory import Memory
from dctx.server.http import create_app
from dctx.server.service import DctxService
from dctx.store.sqlite import SQLiteStore
from server.conftest import segment_session

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


def _service(db: Path | str) -> DctxService:
    return DctxService(Memory(SQLiteStore(db), embedder="hashing"))


def _operations() -> list[str]:
    svc = _service(":memory:")
    try:
        schema = schemathesis.openapi.from_asgi(
            "/openapi.json", create_app(svc, allowed_hosts=["testserver"])
        )
        return [op.ok().label for op in schema.get_all_operations()]
    finally:
        svc.close()


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    svc = _service(Path(tmp_path_factory.mktemp("fuzz")) / "fuzz.db")
    svc.memory.capture(segment_session()["messages"], actor="kenji", skill="financial_analyst")
    yield schemathesis.openapi.from_asgi(
        "/openapi.json", create_app(svc, allowed_hosts=["testserver"])
    )
    svc.close()


@pytest.mark.parametrize("mode", list(GenerationMode), ids=str)
@pytest.mark.parametrize("label", _operations())
def test_no_server_errors_and_schema_conformance(
    schema: Any, label: str, mode: GenerationMode
) -> None:
    """Valid inputs (positive) and inputs that break the schema (negative, must get a 4xx)."""
    [operation] = [op.ok() for op in schema.get_all_operations() if op.ok().label == label]
    extra = [checks.negative_data_rejection] if mode is GenerationMode.NEGATIVE else []

    @given(case=operation.as_strategy(mode))
    @settings(
        max_examples=15 if mode is GenerationMode.POSITIVE else 10,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: schemathesis.Case) -> None:
        case.call_and_validate(checks=CHECKS + extra)

    try:
        run()
    except Unsatisfiable:
        pytest.skip(f"{label} takes no input that could break its schema")
