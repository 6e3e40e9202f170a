"""Mocked tools for live mode, answered from `test.steps` / `test.mocks` per DCBENCH.md:

1. the first not-yet-used step with the same tool name and equal arguments;
2. else the first not-yet-used step with the same tool name;
3. else the first `mocks` entry whose name matches and whose given arguments all match;
4. else `{"error": "no such result"}`.
"""

from __future__ import annotations

import json
from typing import Any

from dctx.bench.schema import Test

NO_SUCH_RESULT = json.dumps({"error": "no such result"})


class ToolAnswerer:
    """Answers one run's tool calls; build a new one per run."""

    def __init__(self, test: Test) -> None:
        self._steps = test.steps
        self._mocks = test.mocks
        self._used: set[int] = set()

    def answer(self, name: str, arguments: dict[str, Any]) -> str:
        free = [i for i in range(len(self._steps)) if i not in self._used]
        for same_args in (True, False):
            for i in free:
                call = self._steps[i].call
                if call.name == name and (not same_args or call.arguments == arguments):
                    self._used.add(i)
                    return self._steps[i].result
        for mock in self._mocks:
            given = mock.call.arguments
            if mock.call.name == name and all(
                k in arguments and arguments[k] == v for k, v in given.items()
            ):
                return mock.result
        return NO_SUCH_RESULT
