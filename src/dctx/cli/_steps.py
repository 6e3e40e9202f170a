"""Parsing of the run description given on the command line: `--tools a,b` and
`--step 'TOOL JSON_ARGS RESULT'`."""

from __future__ import annotations

import json
from typing import Any

from dctx.errors import ConfigError

_DECODER = json.JSONDecoder()


def parse_tools(value: str | None) -> list[str] | None:
    """'get_a, get_b' -> ['get_a', 'get_b']; None or '' means 'tools not known'."""
    if value is None or not value.strip():
        return None
    return [t.strip() for t in value.split(",") if t.strip()]


def parse_step(text: str, position: int) -> tuple[dict[str, Any], str]:
    """'get_segments {"company": "Beta"} {"segments": [...]}' -> (call, result text).

    The tool name is the first word, the arguments the JSON object right after it (may be
    omitted), the result everything after that (any text; JSON is kept as written).
    """
    where = f"--step {position}"
    stripped = text.strip()
    if not stripped:
        raise ConfigError(f"{where} is empty; write it as 'TOOL JSON_ARGS RESULT'")
    name, _, rest = stripped.partition(" ")
    rest = rest.lstrip()
    arguments: dict[str, Any] = {}
    if rest.startswith("{"):
        try:
            parsed, end = _DECODER.raw_decode(rest)
        except ValueError as exc:
            raise ConfigError(
                f"{where}: the arguments after {name!r} are not valid JSON ({exc}); "
                """write it as 'TOOL {"arg": "value"} RESULT'"""
            ) from exc
        if not isinstance(parsed, dict):
            raise ConfigError(f"{where}: the arguments must be a JSON object")
        arguments = parsed
        rest = rest[end:].strip()
    return {"name": name, "arguments": arguments}, rest
