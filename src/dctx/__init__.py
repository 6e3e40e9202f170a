"""dctx: persistent behavioral memory (Decision Context) for tool-using LLM agents."""

from __future__ import annotations

from dctx.errors import (
    ConfigError,
    DctxError,
    EmbedderMismatchError,
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

__version__ = "0.1.0"

__all__ = [
    "CaptureReport",
    "ConfigError",
    "DctxError",
    "EmbedderMismatchError",
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
