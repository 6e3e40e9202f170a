"""dctx: persistent behavioral memory (Decision Context) for tool-using LLM agents."""

from __future__ import annotations

from dctx.errors import (
    ConfigError,
    DctxError,
    EmbedderMismatchError,
    InvalidIdentifierError,
    MissingDependencyError,
    NotFoundError,
    ProviderError,
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
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Session,
    ToolCall,
    Trigger,
    TriggerKind,
    Unit,
)
from dctx.validation.limits import DEFAULT_LIMITS, Limits

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_LIMITS",
    "CaptureReport",
    "ConfigError",
    "DctxError",
    "EmbedderMismatchError",
    "InvalidIdentifierError",
    "Limits",
    "Memory",
    "Message",
    "MissingDependencyError",
    "NotFoundError",
    "ProviderError",
    "Rule",
    "RuleSource",
    "RuleStatus",
    "RuleType",
    "Run",
    "ScenarioFormatError",
    "Scope",
    "Session",
    "StoreError",
    "ToolCall",
    "TraceFormatError",
    "Trigger",
    "TriggerKind",
    "Unit",
    "UserError",
    "__version__",
]
