"""dctx: persistent behavioral memory (Decision Context) for tool-using LLM agents.

Every public name is loaded on first use, so `import dctx.errors` (or `dctx.__version__`)
does not pull in numpy, onnxruntime or a store backend.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dctx.capture.roles import Grant, RolePolicy
    from dctx.compile.outcomes import OutcomePolicy
    from dctx.errors import (
        AgentLoopError,
        AuthError,
        ConfigError,
        ConflictError,
        DctxError,
        EmbedderMismatchError,
        InvalidIdentifierError,
        MaxTurnsError,
        MissingDependencyError,
        NotFoundError,
        ProviderError,
        RolePolicyError,
        RuntimeFailure,
        ScenarioFormatError,
        StoreError,
        TraceFormatError,
        UserError,
    )
    from dctx.inject.run import Run
    from dctx.memory import CaptureReport, Memory
    from dctx.models import (
        Message,
        Rule,
        RuleEvent,
        RuleEventKind,
        RuleSource,
        RuleStatus,
        RuleType,
        Scope,
        Session,
        SpeakerRole,
        ToolCall,
        Trigger,
        TriggerKind,
        Unit,
    )
    from dctx.validation.limits import DEFAULT_LIMITS, Limits

try:
    __version__ = version("dctx")
except PackageNotFoundError:  # pragma: no cover - running from a source tree not installed
    __version__ = "0.0.0+unknown"

_ERRORS = (
    "AgentLoopError",
    "AuthError",
    "ConfigError",
    "ConflictError",
    "DctxError",
    "EmbedderMismatchError",
    "InvalidIdentifierError",
    "MaxTurnsError",
    "MissingDependencyError",
    "NotFoundError",
    "ProviderError",
    "RolePolicyError",
    "RuntimeFailure",
    "ScenarioFormatError",
    "StoreError",
    "TraceFormatError",
    "UserError",
)
_MODELS = (
    "Message",
    "Rule",
    "RuleEvent",
    "RuleEventKind",
    "RuleSource",
    "RuleStatus",
    "RuleType",
    "Scope",
    "Session",
    "SpeakerRole",
    "ToolCall",
    "Trigger",
    "TriggerKind",
    "Unit",
)
# Where each public name lives: a table, so adding a name is one line.
_LAZY: dict[str, str] = {
    **dict.fromkeys(_ERRORS, "dctx.errors"),
    **dict.fromkeys(_MODELS, "dctx.models"),
    "OutcomePolicy": "dctx.compile.outcomes",
    "Run": "dctx.inject.run",
    "Grant": "dctx.capture.roles",
    "RolePolicy": "dctx.capture.roles",
    "CaptureReport": "dctx.memory",
    "Memory": "dctx.memory",
    "DEFAULT_LIMITS": "dctx.validation.limits",
    "Limits": "dctx.validation.limits",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dctx' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "DEFAULT_LIMITS",
    "AgentLoopError",
    "AuthError",
    "CaptureReport",
    "ConfigError",
    "ConflictError",
    "DctxError",
    "EmbedderMismatchError",
    "Grant",
    "InvalidIdentifierError",
    "Limits",
    "MaxTurnsError",
    "Memory",
    "Message",
    "MissingDependencyError",
    "NotFoundError",
    "OutcomePolicy",
    "ProviderError",
    "RolePolicy",
    "RolePolicyError",
    "Rule",
    "RuleEvent",
    "RuleEventKind",
    "RuleSource",
    "RuleStatus",
    "RuleType",
    "Run",
    "RuntimeFailure",
    "ScenarioFormatError",
    "Scope",
    "Session",
    "SpeakerRole",
    "StoreError",
    "ToolCall",
    "TraceFormatError",
    "Trigger",
    "TriggerKind",
    "Unit",
    "UserError",
    "__version__",
]
