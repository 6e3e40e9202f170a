"""The documented bounds on what dctx accepts from a caller (README, "Security model").

They exist so hostile or broken input fails fast with a typed error instead of holding a lock,
memory or a CPU for minutes. Every entry point (Python API, CLI, HTTP, MCP) checks against the
same `Limits`; `Memory(limits=...)` and `dctx serve --max-body-bytes` can raise them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one capture or run. Characters are Python `str` code points."""

    identifier_chars: int = 200  # actor, skill, namespace, conversation / rule / run ids
    message_chars: int = 200_000  # one message: its text, tool arguments and result together
    messages_per_session: int = 10_000
    nesting_depth: int = 64  # JSON nesting of tool arguments and results
    request_bytes: int = 8 * 1024 * 1024  # one HTTP request body


DEFAULT_LIMITS = Limits()

__all__ = ["DEFAULT_LIMITS", "Limits"]
