"""Compile self-assessment findings (tool-call patterns) into tool RULEs.

The rule text is derived from the structure of the calls alone: argument names, value shapes,
tool names. Values that only identify another entity (a different order id) teach nothing and
compile to no rule. Tool rules are skill-wide: no person said them, the tool behaved so.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from dctx.capture.base import ToolPattern, ToolPatternSignal
from dctx.compile.admission import UNCONFIRMED
from dctx.models import (
    Evidence,
    EvidenceKind,
    Rule,
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Trigger,
    TriggerKind,
    new_id,
    utcnow,
)
from dctx.text import SOURCE_KEY

# date formats a retry may switch an argument to: (strptime format, how the rule names it)
_DATE_FORMATS = [
    ("%Y-%m-%d", "YYYY-MM-DD"),
    ("%m/%d/%Y", "MM/DD/YYYY"),
    ("%Y/%m/%d", "YYYY/MM/DD"),
    ("%d-%m-%Y", "DD-MM-YYYY"),
    ("%Y%m%d", "YYYYMMDD"),
]
_YEARS = range(1900, 2200)  # "40021187" reads as year 4002: an id, not a date
_IDENTIFIER = re.compile(r"^[A-Za-z]{0,6}[-_#]?\d[\w-]*$")
# the example a lesson gives of the values that failed and worked: "(e.g. "B-104", not "x")"
_EXAMPLE = re.compile(r"\s*\(e\.g\. [^)]*\)")
# a value in plain words: "framing", "Electrical rough-in" (no digits, no code punctuation)
_IN_WORDS = re.compile(r"^[A-Za-z][A-Za-z' -]*[A-Za-z]$")


def compile_tool_signal(signal: ToolPatternSignal) -> tuple[Rule, Evidence] | None:
    """One rule (and its evidence) for a self-assessment finding, or None if it teaches
    nothing general. A directive proposed by an LLM self-assessment is used as the text."""
    text = " ".join(signal.directive.split()) or _rule_text(signal)
    if text is None:
        return None
    ctx = signal.ctx
    # only what the rule text carries can steer a run: an id the prerequisite returned is not
    # in "pass the identifier it returns as `company`"
    untrusted = [t for t in signal.from_tool_output if t.lower() in text.lower()]
    plain = _EXAMPLE.sub("", text)
    if untrusted and not any(t.lower() in plain.lower() for t in untrusted):
        # only the example shows what a result said ("B-104" listed by the error): the
        # lesson ("pass it as a code") stands without it, and nothing else came from output
        text, untrusted = plain, []
    evidence = Evidence(
        id=new_id("ev"),
        kind=EvidenceKind.TOOL_FAILURE,
        namespace=ctx.namespace,
        conversation_id=ctx.conversation_id,
        actor=ctx.actor,
        message_index=signal.message_indexes[0] if signal.message_indexes else -1,
        text=json.dumps(
            {
                "pattern": signal.pattern.value,
                "tool": signal.tool,
                "failed_args": signal.failed_args,
                "success_args": signal.success_args,
                "other_tool": signal.other_tool,
                "error": signal.error[:300],
                "messages": signal.message_indexes,
                "conversations": rule_conversations(signal),
            },
            ensure_ascii=False,
            sort_keys=True,
        ),
        timestamp=ctx.timestamp,
        source=ctx.source,
        node_id=signal.node_id,
    )
    rule = Rule(
        id=new_id("rule"),
        text=text,
        type=RuleType.CONTENT,
        trigger=_tool_trigger(signal, text),
        scope=Scope(namespace=ctx.namespace, skill=ctx.skill, actor=None),
        source=RuleSource.SELF_ASSESSMENT,
        actor=None,
        group=f"tool:{signal.tool}:{signal.pattern.value}:{_group_detail(signal)}",
        support=max(1, signal.occurrences),
        supporters=[],
        evidence_ids=[evidence.id],
        conversation_id=ctx.conversation_id,
        created_at=ctx.timestamp,
        updated_at=ctx.timestamp,
        from_tool_output=untrusted,
    )
    if untrusted:
        rule.status = RuleStatus.CANDIDATE
        rule.history.append(sighting(ctx.conversation_id, ctx.actor))
    if signal.candidate:
        # seen in too few conversations: it waits, and admits nothing when it recurs
        rule.status = RuleStatus.CANDIDATE
        rule.history.append(
            {"at": utcnow(), "event": UNCONFIRMED, "conversations": rule_conversations(signal)}
        )
    return rule, evidence


def rule_conversations(signal: ToolPatternSignal) -> list[str]:
    return signal.conversation_ids or [signal.ctx.conversation_id]


def sighting(conversation_id: str, actor: str | None) -> dict[str, Any]:
    """The history entry that records where a candidate lesson was seen (admission counts
    distinct conversations and actors among them)."""
    return {"at": utcnow(), "event": "seen", "conversation": conversation_id, "actor": actor}


def _tool_trigger(signal: ToolPatternSignal, text: str) -> Trigger:
    if signal.situation:
        # applies to that kind of request, seen in the query or the data, not to every run
        return Trigger(
            kind=TriggerKind.DATA,
            text=" ".join(word for word, _ in signal.situation),
            keywords=[root for _, root in signal.situation],
            node_id=signal.node_id,
        )
    after = signal.after_tool
    if signal.pattern is ToolPattern.RETRY_CHANGED_ARGS and not text.startswith("After "):
        # how the tool wants its arguments ("format `order_id` like "SO-<order_id>"") holds
        # for every call of it; the call that happened to come before the failed one is no
        # part of the lesson, and waiting for it would come after the first call it governs
        after = None
    return Trigger(
        kind=TriggerKind.TOOL,
        text=f"before calling {signal.tool}",
        tool=signal.tool,
        after_tool=after,
        node_id=signal.node_id,
    )


def _group_detail(signal: ToolPatternSignal) -> str:
    if signal.other_tool:
        return signal.other_tool
    return ",".join(sorted(set(signal.failed_args) ^ set(signal.success_args))) or ",".join(
        sorted(k for k in signal.failed_args if signal.failed_args[k] != signal.success_args.get(k))
    )


def _rule_text(signal: ToolPatternSignal) -> str | None:
    tool = signal.tool
    other = signal.other_tool
    if signal.pattern is ToolPattern.AUTH_REFRESH:
        refresher = other or "the authentication refresh tool"
        return f"Call {refresher} to refresh authentication before calling {tool}."
    if signal.pattern is ToolPattern.MISSING_PREREQUISITE:
        if not other:
            return None
        return f"Call {other} before calling {tool}{_passes_result(signal)}{_fails_with(signal)}."
    if signal.pattern is ToolPattern.DEAD_SOURCE:
        if other and other != tool:
            # that A failed is part of the lesson: "instead" alone reads as a preference
            return f"Use {other} instead of {tool}; {tool} failed where {other} worked."
        return _args_text(tool, signal.failed_args, signal.success_args)
    if signal.pattern is ToolPattern.RETRY_CHANGED_ARGS:
        text = _args_text(tool, signal.failed_args, signal.success_args)
        substituted = text is not None and "instead of" in text and "`=" in text
        if text is not None and substituted and signal.after_tool and signal.after_tool != tool:
            # the value that worked followed what that tool returned: say so, it is the context
            # in which the lesson holds ("after get_invoice, escalate to billing_ops")
            return f"After {signal.after_tool} returns, {text[0].lower()}{text[1:]}"
        return text
    if signal.pattern is ToolPattern.EMPTY_FALLBACK:
        return (
            f"When {tool} finds nothing, use {other} instead: it had the answer in earlier "
            f"conversations where {tool} came back empty."
        )
    if signal.pattern is ToolPattern.FRUITLESS_LOOKUP:
        said = ", ".join(word for word, _ in signal.situation)
        instead = f" with {', '.join(signal.done_with)}" if signal.done_with else " without it"
        return (
            f"Skip {tool} for requests like these ({said}): it found nothing in earlier "
            f"conversations ({_first_line(signal.error)}) and the task was done{instead}."
        )
    if signal.pattern is ToolPattern.RECURRING_FAILURE:
        if not signal.failed_args:
            return f"Avoid calling {tool}; it keeps failing."
        if len(signal.failed_args) != 1:
            return None  # the failing argument is not identified: no lesson to state
        [(key, value)] = signal.failed_args.items()
        if not SOURCE_KEY.search(key) or not isinstance(value, str | int | float | bool):
            return None  # an entity's id or a payload failing is about that entity, not the tool
        return f"Avoid calling {tool} with {key}={_show(value)}."
    return None


# an id as tools return them: "cmp_2087", "CH-wc-88120", "OB-553019" (a digit, no spaces)
_LOOKS_LIKE_ID = re.compile(r"^(?=[^\s]*\d)[A-Za-z0-9][\w.:#/-]{2,40}$")


def _first_line(error: str) -> str:
    """The error message, short: 'No customer account matches this email.'"""
    try:
        data = json.loads(error)
    except ValueError:
        data = None
    if isinstance(data, dict):
        message = data.get("message") or data.get("error") or error
        return str(message)[:80]
    return error.strip().splitlines()[0][:80] if error.strip() else "not found"


def _passes_result(signal: ToolPatternSignal) -> str:
    """ ", and pass the `key` it returns as `clause_key`" when the retry took an argument's new
    value from a field of the prerequisite's result: the field is what to look for in it.
    Without that, ", and pass the identifier it returns as `company`" when the retry swapped a
    name for an id: the prerequisite exists to resolve that argument."""
    if signal.result_fields:
        key, name = next(iter(signal.result_fields.items()))  # the first argument it resolved
        if name == key:
            return f", and pass the `{key}` it returns"
        return f", and pass the `{name}` it returns as `{key}`"
    for key, new in signal.success_args.items():
        old = signal.failed_args.get(key)
        if isinstance(new, str) and old != new and _LOOKS_LIKE_ID.match(new):
            return f", and pass the identifier it returns as `{key}`"
    return ""


# a machine-readable error code: upper-case words joined by underscores ("HS_CODE_INCOMPLETE")
_ERROR_CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def _fails_with(signal: ToolPatternSignal) -> str:
    """ " (without it, file_customs fails with HS_CODE_INCOMPLETE)": the error code the tool
    returned names what was missing, in the tool's own words, so the agent recognizes the
    case; a message without a code adds nothing (its prose names this run's values)."""
    found = _ERROR_CODE.search(signal.error)
    if found is None:
        return ""
    return f" (without it, {signal.tool} fails with {found.group(0)})"


def _args_text(tool: str, failed: dict[str, Any], success: dict[str, Any]) -> str | None:
    """Describe how the succeeding arguments differ from the failing ones, structurally."""
    removed = [k for k in failed if k not in success]
    added = [k for k in success if k not in failed]
    parts: list[str] = []
    if removed and added:
        parts.append(
            f"pass {_names(added)} instead of {_names(removed)}"
            + _shape_hint(success.get(added[0]))
        )
    elif added:
        parts.append(f"always pass {_names(added)}" + _example(added, success))
    elif removed:
        parts.append(f"do not pass {_names(removed)}")
    for key in failed:
        if key not in success or failed[key] == success[key]:
            continue
        change = _value_change(key, failed[key], success[key])
        if change:
            parts.append(change)
    if not parts:
        return None
    return f"When calling {tool}, " + "; ".join(parts) + "."


def _value_change(key: str, old: Any, new: Any) -> str | None:
    if type(old) is not type(new):
        if isinstance(new, int | float) and not isinstance(new, bool):
            return f"pass `{key}` as a number"
        if isinstance(new, list):
            return f"pass `{key}` as a list"
        if isinstance(new, str):
            return f"pass `{key}` as a string"
        return None
    if isinstance(old, str) and isinstance(new, str):
        example = f"(e.g. {json.dumps(new)}, not {json.dumps(old)})"
        shape = date_format(new)
        if shape is not None and date_format(old) != shape:
            return f"format `{key}` as {shape}"
        if old.lower() == new.lower() and old != new:
            if new.isupper():
                return f"use uppercase `{key}` values"
            if new.islower():
                return f"use lowercase `{key}` values"
        separator = _separator_change(old, new)
        if separator is not None:
            return f"in `{key}`, {separator} {example}"
        if _IDENTIFIER.match(new) and _IN_WORDS.match(old):
            # "framing" refused, "B-104" taken: the field wants a code, not a name
            return f"pass `{key}` as a code, not in words {example}"
        if _recoded_as_digits(old, new):
            return f"in `{key}`, write {len(new)} digits, no letters {example}"
        if _IDENTIFIER.match(old) and _IDENTIFIER.match(new) and not _affixed(old, new):
            return None  # another id: a different entity, not a lesson
        if old.lower() in new.lower() and old != new:
            template = re.sub(re.escape(old), f"<{key}>", new, flags=re.IGNORECASE)
            return f"format `{key}` like {json.dumps(template)}"
        if len(new) <= 24 and len(old) <= 24 and " " not in new and not re.search(r"\d{3,}", new):
            return f"use `{key}`={json.dumps(new)} instead of {json.dumps(old)}"
        return None
    if isinstance(old, int | float) and isinstance(new, int | float):
        if new < old:
            return f"keep `{key}` at or below {new}"
        return f"set `{key}` to at least {new}"
    if isinstance(old, bool) or isinstance(new, bool):
        return f"set `{key}` to {json.dumps(new)}"
    return None


def _affixed(old: str, new: str) -> bool:
    """ "4471093" refused, "SO-4471093" taken: the same id with a prefix or suffix that is not
    more digits is the form the field wants, not another entity ("4471" -> "44710" is one)."""
    if new == old or not (new.startswith(old) or new.endswith(old)):
        return False
    added = new[len(old) :] if new.startswith(old) else new[: len(new) - len(old)]
    return not added.isdigit()


def _recoded_as_digits(old: str, new: str) -> bool:
    """ "AY 482913" refused, "0105482913" taken: the same number, its letters written as
    digits, is the format the field wants (a numeric code of fixed length), not another
    entity, which would not keep the number."""
    digits = "".join(c for c in old if c.isdigit())
    return (
        new.isdigit()
        and any(c.isalpha() for c in old)
        and len(digits) >= 4
        and len(new) > len(digits)
        and new.endswith(digits)
    )


def date_format(value: str) -> str | None:
    """The date format `value` is written in, when it is a real date in it ("2025-02-30" and
    an 8-digit account id are not); quarters ("2025-Q3", "Q3 2025") count too."""
    text = value.strip()
    for fmt, name in _DATE_FORMATS:
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        if parsed.year in _YEARS and parsed.strftime(fmt) == text:
            return name
    return _quarter_format(text)


def _quarter_format(text: str) -> str | None:
    upper = text.upper()
    year, sep, quarter = upper.partition("-Q")
    if sep and _year(year) and quarter in {"1", "2", "3", "4"}:
        return "YYYY-Qn"
    if upper[:1] == "Q" and upper[1:2] in {"1", "2", "3", "4"}:
        rest = upper[2:]
        if _year(rest.removeprefix(" ").removeprefix("-")) and len(rest) in (4, 5):
            return "Qn YYYY"
    return None


def _year(text: str) -> bool:
    return len(text) == 4 and text.isdigit() and int(text) in _YEARS


_SEPARATORS = {
    "-": "a hyphen (-)",
    ".": "a dot (.)",
    "_": "an underscore (_)",
    "/": "a slash (/)",
    ":": "a colon (:)",
    " ": "a space",
    ",": "a comma (,)",
}


def _separator_change(old: str, new: str) -> str | None:
    """ "HVN.A" -> "HVN-A": the same characters with one separator swapped for another is a
    format lesson for every value of that argument, not a fact about one entity; so is the
    same characters with the separators taken out ("0-51500-24146-3" -> "051500241463")."""
    if len(old) != len(new):
        dropped = {c for c in old if c in _SEPARATORS}
        if dropped and new and "".join(c for c in old if c not in dropped) == new:
            named = " or ".join(f"{_SEPARATORS[c].split()[1]}s" for c in sorted(dropped))
            return f"write it without separators (no {named})"
        return None
    swaps = {(a, b) for a, b in zip(old, new, strict=True) if a != b}
    if len(swaps) != 1:
        return None
    [(was, now)] = swaps
    if was in _SEPARATORS and now in _SEPARATORS:
        return f"separate with {_SEPARATORS[now]}, not {_SEPARATORS[was]}"
    return None


def _names(keys: list[str]) -> str:
    return ", ".join(f"`{k}`" for k in keys)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]


def _shape_hint(value: Any) -> str:
    if isinstance(value, str):
        shape = date_format(value)
        if shape is not None:
            return f" (formatted {shape})"
        if value.isupper() and value.isalpha():
            return " (uppercase)"
    return ""


def _example(keys: list[str], success: dict[str, Any]) -> str:
    value = success.get(keys[0])
    if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= 20):
        return f" (e.g. {keys[0]}={_show(value)})"
    return ""
