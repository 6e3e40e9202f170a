"""Test approaches registered by the bench tests (importable by "bench.recording:NAME")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from dctx.bench.approaches.base import ApproachContext
from dctx.bench.schema import SeedSession
from dctx.models import Unit


class Recorder:
    """Records every hook call; delivers a user unit at DP0 and a system unit per result."""

    log: ClassVar[list[tuple[str, Any]]] = []

    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
        Recorder.log.append(("init", ctx.workdir))
        (ctx.workdir / "state.txt").write_text("scratch")

    def capture(self, seed: Sequence[SeedSession]) -> None:
        Recorder.log.append(("capture", list(seed)))
        for s in seed:  # vandalize our copy: the scenario must not change
            s.messages.clear()

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        Recorder.log.append(("start", (actor, skill, query, list(tools))))
        return [Unit(text="Report growth per segment? no: wait for data.", channel="user")]

    def observe(self, call: dict[str, Any], result: str) -> list[Unit]:
        Recorder.log.append(("observe", (call, result)))
        call["arguments"]["company"] = "MUTATED"
        return [Unit(text=f"After {call['name']}: give growth per segment.", channel="system")]

    def close(self) -> None:
        Recorder.log.append(("close", None))


class Broken:
    """Fails in capture: the runner must record the error, not crash."""

    def __init__(self, ctx: ApproachContext) -> None:
        pass

    def capture(self, seed: Sequence[SeedSession]) -> None:
        raise RuntimeError("boom")

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        return []

    def observe(self, call: dict[str, Any], result: str) -> list[Unit]:
        return []

    def close(self) -> None:
        pass


class BadUnits(Broken):
    def capture(self, seed: Sequence[SeedSession]) -> None:
        return None

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        return ["not a unit"]  # type: ignore[list-item]
