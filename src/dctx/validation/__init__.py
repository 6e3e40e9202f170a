"""Validation of untrusted input, shared by every entry point (Python API, CLI, HTTP, MCP).

- `identifiers`: actor, skill, namespace and ids: printable, bounded, NFC, compared exactly;
- `content`: messages and JSON values: size, count, nesting depth, encoding;
- `limits`: the documented bounds (`Limits`, `DEFAULT_LIMITS`);
- `safe_yaml`: YAML without aliases (no alias bombs).
"""

from __future__ import annotations

from dctx.validation.content import (
    check_count,
    check_json_text,
    check_messages,
    check_session,
    check_text,
    check_value,
    text_problem,
)
from dctx.validation.identifiers import identifier, optional_identifier
from dctx.validation.limits import DEFAULT_LIMITS, Limits
from dctx.validation.safe_yaml import load_yaml

__all__ = [
    "DEFAULT_LIMITS",
    "Limits",
    "check_count",
    "check_json_text",
    "check_messages",
    "check_session",
    "check_text",
    "check_value",
    "identifier",
    "load_yaml",
    "optional_identifier",
    "text_problem",
]
