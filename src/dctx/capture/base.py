"""What capture produces: normalized sessions and the behavioral signals found in them.

Two signal sources (paper, section 3):
- `CorrectionSignal`: a human correction (or withdrawal) in a user turn.
- `ToolPatternSignal`: a pattern in the structure of tool calls (self-assessment), found from
  tool-only data: names, arguments, error/success of results. Never from the text of results
  or assistant messages as a source of directives.

`AftermathClassifier` is the hook through which an LLM may decide ambiguous user turns
(reading/llm.py); `SelfAssessor` the one through which it may take over self-assessment
(self_assess_llm.py).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from dctx.models import Session


class Aftermath(enum.StrEnum):
    """What a user turn that follows an assistant output is."""

    CORRECTION = "correction"
    ACCEPTANCE = "acceptance"
    NEW_REQUEST = "new_request"
    WITHDRAWAL = "withdrawal"  # "forget the CC rule", "stop doing that"
    ONE_OFF = "one_off"  # "just for this report": persists nothing


@dataclass(slots=True)
class SessionContext:
    """Who/where a signal came from; shared by both signal kinds."""

    namespace: str
    conversation_id: str
    actor: str
    skill: str
    timestamp: str
    source: str | None = None


def session_context(session: Session) -> SessionContext:
    """Who/where of a session, as every signal carries it."""
    return SessionContext(
        namespace=session.namespace,
        conversation_id=session.conversation_id,
        actor=session.actor,
        skill=session.skill,
        timestamp=session.timestamp,
        source=session.source,
    )


@dataclass(slots=True)
class CorrectionSignal:
    """One directive a user gave (after cleaning), with what it corrected."""

    ctx: SessionContext
    aftermath: Aftermath  # CORRECTION or WITHDRAWAL
    directive: str  # the directive sentence(s), filler removed, as the user said them
    raw: str  # the whole user message
    message_index: int
    chain: int  # correction-chain number within (conversation, actor); split at acceptances
    situation: str  # accumulated context before the corrected output (query, calls, results)
    query: str  # the first user request of the session
    previous_output: str  # the assistant text (or calls) being corrected
    subjects: list[str] = field(default_factory=list)  # subject names seen in the session
    subject_keys: dict[str, str] = field(default_factory=dict)  # subject -> arg name ("company")
    tools_seen: list[str] = field(default_factory=list)  # tools called before this turn
    last_tool: str | None = None  # the last tool whose result preceded the corrected output
    node_id: str | None = None  # decision node of the corrected output (trigger anchor)
    # how sure the turn reader is that the turn changes the rulebook (capture/reading)
    confidence: float = 1.0
    # admitted on first sight only as a candidate: stored with its evidence, never injected
    candidate: bool = False
    # the reader read the turn as taking an instruction back and this is the turn's first
    # directive ("drop the emojis, ..."): compile tries it as a revocation first
    revokes: bool = False
    # how far the speaker's role lets the rule reach (capture/roles.py): None as the words
    # say (the speaker's own scope, the team's when said so); "team" every actor of the
    # skill; "personal" only a preference stated as the speaker's own, for them alone
    reach: Literal["team", "personal"] | None = None
    # who said it as what, when the role is not the session's default (provenance)
    speaker_role: str | None = None
    # an elliptical turn ("same with anything flagged hazmat class 3"): the directive of the
    # chain's turn before that it says again for something else
    extends: str = ""
    # a turn that gives a new value for one of its speaker's rules (capture/revisions.py): the
    # text of that rule, which compile supersedes however unlike the two texts read
    revises: str = ""
    # read by the opening-policy reader alone (capture/reading/policies.py): a one-off about
    # the request's case can read like a policy, so the rule is added beside the speaker's
    # rules and replaces none of them
    replaces: bool = True
    # the turn passes on a decision of the organisation ("Council changed it last night: no
    # down payment for residential"; capture/reading/announcements.py): the team's rule,
    # unless the directive is marked as the speaker's own
    announced: bool = False


class ToolPattern(enum.StrEnum):
    RETRY_CHANGED_ARGS = "retry_changed_args"  # fails, then succeeds with other arguments
    RECURRING_FAILURE = "recurring_failure"  # same tool/argument fails again and again
    MISSING_PREREQUISITE = "missing_prerequisite"  # fails; another call gets what was missing
    AUTH_REFRESH = "auth_refresh"  # fails on auth; refresh; retry succeeds
    DEAD_SOURCE = "dead_source"  # a source fails; a different tool/source works instead
    # a lookup finds nothing for one kind of request, again and again, and the task is done
    # without it (a customer lookup for sales leads who are not customers yet)
    FRUITLESS_LOOKUP = "fruitless_lookup"
    # a search finds nothing and another source of the same kind has it, in several
    # conversations (new products not in the KB yet, only in the release notes)
    EMPTY_FALLBACK = "empty_fallback"


@dataclass(slots=True)
class ToolPatternSignal:
    """A self-assessment finding over tool-only data."""

    ctx: SessionContext
    pattern: ToolPattern
    tool: str  # the tool the rule is about (the one that failed)
    failed_args: dict[str, Any] = field(default_factory=dict)
    success_args: dict[str, Any] = field(default_factory=dict)
    other_tool: str | None = None  # prerequisite / refresh / replacement tool
    error: str = ""  # short error text of the failing result (evidence only)
    # MISSING_PREREQUISITE: argument -> the field of the other tool's result its value came from
    result_fields: dict[str, str] = field(default_factory=dict)
    after_tool: str | None = None  # tool whose result preceded the failing call (trigger)
    message_indexes: list[int] = field(default_factory=list)  # evidence messages
    occurrences: int = 1  # for recurring failures: how many times across sessions
    conversation_ids: list[str] = field(default_factory=list)
    node_id: str | None = None
    directive: str = ""  # the rule text an LLM proposed; empty: derived from the structure
    # FRUITLESS_LOOKUP: words the requests it was fruitless for share (surface form, stem)
    situation: list[tuple[str, str]] = field(default_factory=list)
    done_with: list[str] = field(default_factory=list)  # FRUITLESS_LOOKUP: tools that did it
    # values / tools the lesson recommends that a tool result showed the agent first
    # (capture/provenance.py): the lesson is untrusted
    from_tool_output: list[str] = field(default_factory=list)
    # not yet seen in enough conversations (capture/replacements.py): stored as a CANDIDATE
    # that only a confirmed sighting or a person admits
    candidate: bool = False
    # RETRY_CHANGED_ARGS where the person typed the value that failed and the one that worked
    # (a typo of theirs): no lesson, kept only until `drop_choices` has read its change
    persons_slip: bool = False


@runtime_checkable
class AftermathClassifier(Protocol):
    """Decides an ambiguous user turn. The deterministic classifier is the default; an LLM
    classifier may be configured and must fall back to it on failure."""

    def classify(self, previous_output: str, user_text: str) -> Aftermath | None:
        """Return a decision, or None to keep the deterministic one."""
        ...


@runtime_checkable
class SelfAssessor(Protocol):
    """Finds tool-call patterns in sessions (tool-only data). The deterministic analysis is
    the default; an LLM assessor may be configured and must fall back to it on failure."""

    def assess(self, sessions: Sequence[Session]) -> list[ToolPatternSignal] | None:
        """Return the findings, or None to keep the deterministic ones."""
        ...
