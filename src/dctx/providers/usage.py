"""Token accounting for the paper's Table 4: LLM input/output tokens and embedding tokens.

A `UsageMeter` is a thread-safe accumulator. Provider code does not hold meters; it reports
through `record_llm` / `record_embedding` / `record_event`, which add to every meter made
active in the current context by `metering()`. Nesting works, so one capture's meter and the
run's (or the benchmark's) meter both see the same call:

    with metering() as run_meter:
        for session in sessions:
            with metering() as capture_meter:
                mem.capture_session(session)
            report.usage = capture_meter.totals()
    print(run_meter.totals().to_dict())

Active meters live in a ContextVar: they follow the current thread and asyncio task. A thread
started inside `metering()` sees them only if started with `contextvars.copy_context().run`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields

from dctx.providers.base import Usage

__all__ = [
    "UsageMeter",
    "UsageTotals",
    "metering",
    "record_embedding",
    "record_event",
    "record_llm",
]

#: Event names `record_event` accepts, each counted in a `UsageTotals` field.
EVENTS = ("cache_hits", "invalid_outputs", "fallbacks")


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """A snapshot of what a meter counted."""

    llm_calls: int = 0
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    embedding_calls: int = 0
    embedding_tokens: int = 0
    cache_hits: int = 0  # LLM results served from the cache (cost nothing)
    invalid_outputs: int = 0  # structured outputs that failed validation
    fallbacks: int = 0  # LLM steps that gave up and left the deterministic path in charge

    @property
    def llm_tokens(self) -> int:
        return self.llm_input_tokens + self.llm_output_tokens

    def __add__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


class UsageMeter:
    """Thread-safe counters. Safe to share between threads and to nest in `metering()`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {f.name: 0 for f in fields(UsageTotals)}

    def add_llm(self, usage: Usage) -> None:
        with self._lock:
            self._counts["llm_calls"] += 1
            self._counts["llm_input_tokens"] += max(0, usage.input_tokens)
            self._counts["llm_output_tokens"] += max(0, usage.output_tokens)

    def add_embedding(self, tokens: int, *, calls: int = 1) -> None:
        with self._lock:
            self._counts["embedding_calls"] += calls
            self._counts["embedding_tokens"] += max(0, tokens)

    def add_event(self, name: str, count: int = 1) -> None:
        if name not in EVENTS:
            raise ValueError(f"unknown usage event {name!r}; expected one of {EVENTS}")
        with self._lock:
            self._counts[name] += count

    def totals(self) -> UsageTotals:
        with self._lock:
            return UsageTotals(**self._counts)

    def reset(self) -> None:
        with self._lock:
            for key in self._counts:
                self._counts[key] = 0


_ACTIVE: ContextVar[tuple[UsageMeter, ...]] = ContextVar("dctx_usage_meters", default=())


@contextmanager
def metering(meter: UsageMeter | None = None) -> Iterator[UsageMeter]:
    """Make `meter` (a new one if None) receive every usage recorded in this context."""
    meter = meter if meter is not None else UsageMeter()
    token = _ACTIVE.set((*_ACTIVE.get(), meter))
    try:
        yield meter
    finally:
        _ACTIVE.reset(token)


def _active(extra: UsageMeter | None) -> tuple[UsageMeter, ...]:
    meters = _ACTIVE.get()
    if extra is not None and extra not in meters:
        return (*meters, extra)
    return meters


def record_llm(usage: Usage, *, meter: UsageMeter | None = None) -> None:
    """Count one LLM call in every active meter (and in `meter`, when given)."""
    for m in _active(meter):
        m.add_llm(usage)


def record_embedding(tokens: int, *, calls: int = 1, meter: UsageMeter | None = None) -> None:
    """Count embedding tokens in every active meter (and in `meter`, when given)."""
    for m in _active(meter):
        m.add_embedding(tokens, calls=calls)


def record_event(name: str, *, meter: UsageMeter | None = None) -> None:
    """Count one event ("cache_hits", "invalid_outputs", "fallbacks") in the active meters."""
    if name not in EVENTS:
        raise ValueError(f"unknown usage event {name!r}; expected one of {EVENTS}")
    for m in _active(meter):
        m.add_event(name)
