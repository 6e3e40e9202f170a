"""Read a trigger a person writes (`dctx rules edit ID --trigger ...`) into a `Trigger`.

    always                      every run in scope, before the first model call
    query: TEXT                 when the run's query (or a tool step) is like TEXT
    data: CONDITION             when what the run has seen meets CONDITION: compiled as the
                                capture compiler compiles a condition clause (a threshold,
                                a negated value, a predicate over result items, else free
                                text, met by a query or step that says it in its words or
                                others: retrieve/condition_match.py)
    tool: NAME [after OTHER]    before a call of NAME (after OTHER returns, when given)

A spec that names nothing checkable is a `ConfigError` that says what to write instead.
"""

from __future__ import annotations

from dctx.capture.condition_words import condition_keywords
from dctx.compile.changes import change_predicate
from dctx.compile.conditions import condition_parts
from dctx.compile.predicates import compile_predicate, date_window
from dctx.errors import ConfigError
from dctx.models import Trigger, TriggerKind

FORMS = "'always', 'query: TEXT', 'data: CONDITION' or 'tool: NAME [after OTHER]'"


def parse_trigger(spec: str) -> Trigger:
    """The trigger `spec` describes; ConfigError naming the accepted forms otherwise."""
    head, sep, rest = spec.strip().partition(":")
    kind = head.strip().lower()
    body = rest.strip()
    if not sep:
        if kind == TriggerKind.ALWAYS.value:
            return Trigger(kind=TriggerKind.ALWAYS)
        raise ConfigError(f"trigger {spec!r} is not one of {FORMS}")
    if kind == TriggerKind.ALWAYS.value:
        raise ConfigError("an 'always' trigger takes no text: write just 'always'")
    if not body:
        raise ConfigError(f"trigger {spec!r} has no text after {head.strip()!r}:; use {FORMS}")
    if kind == TriggerKind.QUERY.value:
        return Trigger(kind=TriggerKind.QUERY, text=body)
    if kind == TriggerKind.DATA.value:
        return data_trigger(body)
    if kind == TriggerKind.TOOL.value:
        return _tool_trigger(body)
    raise ConfigError(f"trigger kind {head.strip()!r} is unknown; use {FORMS}")


def data_trigger(condition: str) -> Trigger:
    """A DATA trigger for a condition, compiled as capture compiles one."""
    keywords, numeric, excluded = condition_parts(condition)
    plain = numeric is None and not excluded
    predicate = compile_predicate(condition, keywords) if plain else None
    if numeric is not None:
        predicate = date_window(numeric)
    change = None if excluded else change_predicate(condition, keywords, numeric)
    if change is not None:  # "deposits drop quarter on quarter": two values compared
        predicate, numeric = change, None
        keywords = keywords or condition_keywords(condition)
    if not keywords and numeric is None and not excluded:
        raise ConfigError(
            f"data condition {condition!r} names nothing to check in tool data; name a field "
            "and a value ('a pod is in CrashLoopBackOff'), a threshold ('runway under 12 "
            "months') or a missing field ('a listing has no price')"
        )
    return Trigger(
        kind=TriggerKind.DATA,
        text=condition,
        keywords=keywords,
        numeric=numeric,
        excluded=excluded,
        predicate=predicate,
    )


def _tool_trigger(body: str) -> Trigger:
    words = body.split()
    if len(words) == 1:
        return Trigger(kind=TriggerKind.TOOL, text=body, tool=words[0])
    if len(words) == 3 and words[1].lower() == "after":
        return Trigger(kind=TriggerKind.TOOL, text=body, tool=words[0], after_tool=words[2])
    raise ConfigError(f"tool trigger {body!r} must be 'tool: NAME' or 'tool: NAME after OTHER'")
