"""UsageMeter: nested metering, thread safety, and what the provider paths record."""

from __future__ import annotations

import contextvars
import threading

import pytest

from dctx.providers.base import Usage
from dctx.providers.fakes import ScriptedLLM
from dctx.providers.structured import complete_json
from dctx.providers.usage import (
    UsageMeter,
    UsageTotals,
    metering,
    record_embedding,
    record_event,
    record_llm,
)

SCHEMA = {"type": "object"}


def test_nested_meters_each_see_their_part() -> None:
    with metering() as run:
        with metering() as first:
            record_llm(Usage(10, 2))
        with metering() as second:
            record_llm(Usage(5, 1))
            record_embedding(40)
        record_event("cache_hits")
    record_llm(Usage(1000, 1000))  # outside every meter: nobody counts it
    assert first.totals() == UsageTotals(llm_calls=1, llm_input_tokens=10, llm_output_tokens=2)
    assert second.totals().embedding_tokens == 40
    total = run.totals()
    assert (total.llm_calls, total.llm_input_tokens, total.llm_output_tokens) == (2, 15, 3)
    assert total.embedding_tokens == 40 and total.embedding_calls == 1
    assert total.cache_hits == 1
    assert total.llm_tokens == 18
    assert first.totals() + second.totals() == UsageTotals(
        llm_calls=2,
        llm_input_tokens=15,
        llm_output_tokens=3,
        embedding_calls=1,
        embedding_tokens=40,
    )


def test_explicit_meter_and_reset() -> None:
    meter = UsageMeter()
    record_llm(Usage(3, 4), meter=meter)
    with metering(meter):
        record_llm(Usage(1, 1), meter=meter)  # active and explicit: counted once
    assert meter.totals().llm_input_tokens == 4
    assert meter.totals().to_dict()["llm_output_tokens"] == 5
    meter.reset()
    assert meter.totals() == UsageTotals()
    with pytest.raises(ValueError):
        record_event("nonsense", meter=meter)


def test_meter_is_thread_safe() -> None:
    meter = UsageMeter()

    def worker() -> None:
        for _ in range(2000):
            meter.add_llm(Usage(1, 2))
            meter.add_embedding(3)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    totals = meter.totals()
    assert totals.llm_calls == 16000
    assert (totals.llm_input_tokens, totals.llm_output_tokens) == (16000, 32000)
    assert totals.embedding_tokens == 48000


def test_meters_follow_the_context_not_the_process() -> None:
    seen: list[int] = []
    with metering() as meter:
        plain = threading.Thread(target=lambda: record_llm(Usage(7, 0)))
        plain.start()
        plain.join()
        ctx = contextvars.copy_context()
        copied = threading.Thread(target=lambda: ctx.run(record_llm, Usage(9, 0)))
        copied.start()
        copied.join()
        seen.append(meter.totals().llm_input_tokens)
    assert seen == [9]  # only the thread that carried the context over was counted


def test_complete_json_records_calls_invalid_outputs_and_fallbacks() -> None:
    llm = ScriptedLLM(["not json", '{"a": 1}', "still not", "nope"])
    with metering() as meter:
        assert complete_json(llm, "sys", "one two three", SCHEMA) == {"a": 1}
        assert complete_json(llm, "sys", "x", SCHEMA) is None
    totals = meter.totals()
    assert totals.llm_calls == 4
    assert totals.invalid_outputs == 3
    assert totals.fallbacks == 1
    assert totals.llm_input_tokens == sum(c.usage.input_tokens for c in llm.calls)
    assert totals.llm_output_tokens == sum(c.usage.output_tokens for c in llm.calls)
