"""Compile a Rule into guards, conservatively.

A guard that fires wrongly blocks a correct call, so a rule only yields guards when its text
clearly names a tool AND a parameter with a value, an order between two tools, or a tool not
to use. Everything else (formats, thresholds, "where appropriate") stays a text-only rule.
The text is read from the generic sentence forms the compilers and people write:

    When calling T, use `k`="new" instead of "old".  -> k == old is forbidden (corrected to new)
    When calling T, always pass `k` (e.g. k=2025).   -> k is required
    When calling T, set `k` to true.                -> k must equal true
    Always call T with k=v. / Call T with `k`="v".  -> k must equal v
    Avoid calling T with k=v. / Never call T with . -> k == v is forbidden
    Call A before calling B.                        -> B needs an earlier call of A
                                                       (inferred ones: seen at least twice)
    Use A instead of B.  (A and B both tools)       -> B is forbidden, A is the alternative
    Avoid calling T; it keeps failing. / Never call T. -> T is forbidden

"Instead of" on a parameter forbids only the old value: the new one worked once, but other
values may be right in other situations (another ticker, another form type).

A guard never rewrites a call to a value the lesson took from tool output
(`Rule.from_tool_output`): whoever wrote that result would choose where the call goes. Such a
violation is handed back to the model instead, and a "must equal" constraint on such a value
compiles to no guard (the rule stays text the model reads).

A tool name counts only when it is one of the run's tools (when known), the rule's trigger
tool, or, with no tool list, an identifier that cannot be an English word (has `_`, or is in
backticks). Conditions ("When X, ...", qualifiers) are not parsed here: a guard is enforced only
once its rule has been delivered in the run, and delivery is where conditions are decided.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from dctx.guards.model import Guard, GuardKind, same_value
from dctx.models import Rule, RuleSource

# An order inferred from tool calls (not said by a person) blocks calls outright, and one
# co-occurrence is weak evidence: it must have been seen at least this often.
MIN_ORDER_SUPPORT = 2

_TOOL = r"`?(?P<{name}>[A-Za-z_][\w.-]*?)`?"
_KEY = r"`?(?P<key>[A-Za-z_]\w*)`?"
_VALUE = r"(?P<value>\"[^\"]*\"|'[^']*'|[^\s;,]+?)"
_HEDGE = re.compile(
    r"\b(unless|until|except|if|when|only|sometimes|usually|maybe|might|could|where possible|"
    r"if possible|when possible|ideally|prefer|probably|more than|at most|twice|again)\b",
    re.IGNORECASE,
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_WHEN_CALLING = _rx(r"^when calling " + _TOOL.format(name="tool") + r",\s*(?P<rest>.+)$")
_PART_INSTEAD = _rx(r"^use " + _KEY + r"\s*=\s*" + _VALUE + r" instead of (?P<old>.+)$")
_PART_REQUIRED = _rx(r"^always pass " + _KEY + r"(?:\s*\(e\.g\. [^)]*\))?$")
_PART_SET = _rx(
    r"^(?:always )?(?:set|pass) " + _KEY + r"(?:\s*=\s*|\s+to\s+|\s+as\s+)" + _VALUE + "$"
)
_CALL_WITH = _rx(
    r"^(?:always )?(?:call|use) " + _TOOL.format(name="tool") + r" with " + _KEY + r"\s*=\s*"
    r"" + _VALUE + "$"
)
_AVOID_WITH = _rx(
    r"^(?:avoid calling|never call|do not call|don't call|never use|do not use|don't use) "
    + _TOOL.format(name="tool")
    + r" with "
    + _KEY
    + r"\s*=\s*"
    + _VALUE
    + "$"
)
_BEFORE = _rx(
    r"^(?:always )?call "
    + _TOOL.format(name="first")
    + r"(?: to refresh authentication)? before (?:calling|you call) "
    + _TOOL.format(name="tool")
    + "$"
)
_INSTEAD_TOOL = _rx(  # what follows a semicolon says why ("; B failed where A worked")
    r"^use "
    + _TOOL.format(name="alt")
    + r" instead of "
    + _TOOL.format(name="tool")
    + r"(?:\s*;.*)?$"
)
_FORBID_TOOL = _rx(
    r"^(?:avoid|never|do not|don't)\s+(?:call|calling|use|using|run|running)\s+"
    + _TOOL.format(name="tool")
    + r"(?:\s*[;,]\s*(?:it|they|that|this)\b.*)?$"
)


def compile_guards(rules: Iterable[Rule], *, tools: Sequence[str] | None = None) -> list[Guard]:
    """Guards of every rule that states a checkable constraint on tool calls."""
    out: list[Guard] = []
    seen: set[tuple[Any, ...]] = set()
    for rule in rules:
        for guard in rule_guards(rule, tools=tools):
            key = (guard.kind, guard.tool, guard.param, json.dumps(guard.value), guard.first)
            if key not in seen:
                seen.add(key)
                out.append(guard)
    return out


def rule_guards(rule: Rule, *, tools: Sequence[str] | None = None) -> list[Guard]:
    """The guards one rule compiles to ([] when its text states no clear tool constraint)."""
    body = _body(rule)
    if not body:
        return []
    known = _Names(rule, tools)
    m = _WHEN_CALLING.match(body)
    if m:
        tool = known.tool(m.group("tool"))
        if tool is None:
            return []
        return [g for part in m.group("rest").split(";") if (g := _part(rule, tool, part))]
    if _HEDGE.search(body):
        return []
    return _sentence(rule, body, known)


def _sentence(rule: Rule, body: str, known: _Names) -> list[Guard]:
    if m := _CALL_WITH.match(body):
        tool = known.tool(m.group("tool"))
        value = _value(m.group("value"))
        if tool and not _untrusted(rule, value):
            return [Guard(GuardKind.PARAM_EQUALS, tool, rule.id, m.group("key"), value)]
    if m := _AVOID_WITH.match(body):
        tool = known.tool(m.group("tool"))
        if tool:
            value = _value(m.group("value"))
            return [Guard(GuardKind.PARAM_FORBIDDEN, tool, rule.id, m.group("key"), value)]
    if m := _BEFORE.match(body):
        first, tool = known.tool(m.group("first")), known.tool(m.group("tool"))
        inferred = rule.source is RuleSource.SELF_ASSESSMENT and not any(
            h.get("event") == "edited"
            for h in rule.history  # a person rewrote it
        )
        if first and tool and first != tool and (not inferred or rule.support >= MIN_ORDER_SUPPORT):
            return [Guard(GuardKind.CALL_BEFORE, tool, rule.id, first=first)]
    if m := _INSTEAD_TOOL.match(body):
        alt, tool = known.tool(m.group("alt")), known.tool(m.group("tool"))
        if alt and tool and alt != tool:
            return [Guard(GuardKind.TOOL_FORBIDDEN, tool, rule.id, instead=alt)]
    if m := _FORBID_TOOL.match(body):
        tool = known.tool(m.group("tool"))
        if tool:
            return [Guard(GuardKind.TOOL_FORBIDDEN, tool, rule.id)]
    return []


def _untrusted(rule: Rule, value: Any) -> bool:
    """A value the rule's lesson took from tool output: never written into a call."""
    return any(same_value(value, v) for v in rule.from_tool_output)


def _part(rule: Rule, tool: str, part: str) -> Guard | None:
    part = part.strip().rstrip(".").strip()
    if m := _PART_INSTEAD.match(part):
        old = m.group("old").strip()
        if not old.startswith(('"', "'")) and " " in old:
            return None  # "instead of the default": no value named
        instead = _value(m.group("value"))
        return Guard(
            GuardKind.PARAM_FORBIDDEN,
            tool,
            rule.id,
            m.group("key"),
            _value(old),
            instead=None if _untrusted(rule, instead) else instead,
        )
    if m := _PART_REQUIRED.match(part):
        return Guard(GuardKind.PARAM_REQUIRED, tool, rule.id, m.group("key"))
    if m := _PART_SET.match(part):
        raw = m.group("value")
        if raw.lower() in {"a", "an", "the", "at"} or _untrusted(rule, _value(raw)):
            return None
        return Guard(GuardKind.PARAM_EQUALS, tool, rule.id, m.group("key"), _value(raw))
    return None


class _Names:
    """Which words of a rule may be read as tool names (see the module docstring)."""

    def __init__(self, rule: Rule, tools: Sequence[str] | None) -> None:
        self.tools = {t.lower(): t for t in tools} if tools is not None else None
        self.own = {t.lower(): t for t in (rule.trigger.tool, rule.trigger.after_tool) if t}

    def tool(self, word: str) -> str | None:
        low = word.lower()
        if low in self.own:
            return self.own[low]
        if self.tools is not None:
            return self.tools.get(low)
        return word if "_" in word else None


def _body(rule: Rule) -> str:
    """The rule's directive without its qualifier prefix and final period."""
    text = rule.text.strip()
    for qual in rule.qualifiers:
        if qual and text.lower().startswith(qual.lower()):
            text = text[len(qual) :].lstrip(" ,")
            break
    return text.rstrip(" .!").strip()


def _value(raw: str) -> Any:
    raw = raw.strip()
    if raw[:1] == "'" and raw[-1:] == "'":
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        return raw
