"""Core records shared by every layer: normalized traces, graph records and rules.

Plain dataclasses: cheap to build in the hot path, serializable to JSON via `to_dict`.
Nothing here talks to a database or a model.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
Channel = Literal["user", "system"]


class SpeakerRole(enum.StrEnum):
    """Who a person in a conversation speaks as; a role policy (capture/roles.py) decides what
    each may teach. In an assistant the user is the operator; in a customer-facing agent the
    user is an end user, whose words are requests, not teaching."""

    OPERATOR = "operator"  # the team that runs the agent (or the user of an assistant)
    END_USER = "end_user"  # a customer served by the agent
    REVIEWER = "reviewer"  # annotates a finished transcript after the fact


DEFAULT_NAMESPACE = "default"


def new_id(prefix: str) -> str:
    """Short, sortable-enough, collision-safe id with a readable prefix (rule_, ev_, node_)."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def utcnow() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str | None) -> datetime | None:
    """A stored ISO-8601 time (UTC when no zone is given); None if it is not one."""
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


# --------------------------------------------------------------------------- traces


@dataclass(slots=True)
class ToolCall:
    """One tool call made by the assistant. `arguments` is already decoded JSON."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(slots=True)
class Message:
    """One normalized message, whatever wire format it came from.

    `index` is the position in the original message list of the source format (so errors and
    provenance point at what the user sees in their file).
    """

    index: int
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    regenerated: bool = False
    # user turns: who spoke it (None: the session's role policy default); set per message in
    # the trace (`speaker_role`) or for a whole session at capture (`speaker_role=`)
    speaker_role: SpeakerRole | None = None


@dataclass(slots=True)
class Session:
    """One conversation of one actor with one agent skill, in a namespace (tenant)."""

    conversation_id: str
    messages: list[Message]
    actor: str = "anonymous"
    skill: str = "default"
    namespace: str = DEFAULT_NAMESPACE
    timestamp: str = field(default_factory=utcnow)
    source: str | None = None  # file the session came from, for provenance and errors


# --------------------------------------------------------------------------- rules


class RuleType(enum.StrEnum):
    FORMAT = "FORMAT"  # how output looks: routed without semantic similarity (Finding 2)
    CONTENT = "CONTENT"  # what to do/say: routed by trigger match


class RuleSource(enum.StrEnum):
    CORRECTION = "correction"  # a human said it
    SELF_ASSESSMENT = "self_assessment"  # learned from the structure of tool calls
    MANUAL = "manual"  # added or edited by a person through the API/CLI


class RuleStatus(enum.StrEnum):
    ACTIVE = "active"
    DRAFT = "draft"  # review mode: not injected until approved
    # admitted on first sight without enough confidence: stored with its evidence, never
    # injected; active when the lesson recurs in another session or a person approves it
    CANDIDATE = "candidate"
    DISABLED = "disabled"  # a person switched it off; can be enabled again
    SUPERSEDED = "superseded"  # a later correction replaced it; kept as history
    WITHDRAWN = "withdrawn"  # the actor withdrew it ("forget the CC rule")
    # a candidate that neither recurred nor was approved within its time: kept as history
    EXPIRED = "expired"
    # a person archived it after it went unused (`dctx rules archive`); kept, never injected,
    # `enable` brings it back
    ARCHIVED = "archived"


class TriggerKind(enum.StrEnum):
    ALWAYS = "always"  # every run in scope (FORMAT rules)
    QUERY = "query"  # when the run's query is similar to the situation the rule came from
    DATA = "data"  # when the data seen so far meets a condition (qualifier)
    TOOL = "tool"  # before a call of `tool` (after `after_tool` returned, when set)


@dataclass(slots=True)
class NumericCondition:
    """A threshold on a numeric field of tool data: e.g. runway < 12."""

    terms: list[str]  # words naming the field ("runway", "months")
    op: Literal["<", "<=", ">", ">="]
    value: float
    # the unit written after the number, by its registry name ("day"), or units.PERCENT
    # ("1%") or units.MONEY ("$15")
    unit: str = ""


@dataclass(slots=True)
class Predicate:
    """A data condition compiled to a test over the items (JSON objects) of tool results:
    some item, named by `terms` (in its keys, the keys leading to it, or its values), whose
    string field equals one of `values` ("a pod is in CrashLoopBackOff"), or that lacks a
    field named by `absent` ("a listing has no price"). Never met by a single word.

    A `soft` predicate is one read from ordinary words, testable only where the data has the
    field it names: a field named by `key` equal to one of `values` ("a shipment whose
    status is delayed"), or a true/false field whose name says the state `key` names, equal
    to `flag` ("the account is on hold": `on_hold: true`), or a date field named by `key`
    whose distance from now meets `op number unit` ("an invoice older than 90 days":
    `invoice_date`). Where no result has such a field, a free-text condition is left to the
    free-text match (retrieve/condition_match.py) and a threshold to its numeric fields.

    A `change` predicate compares values of a numeric field named by `key`: the latest two
    periods of a series in one result (`change="period"`: "deposits drop quarter on quarter"
    over `deposits` beside `deposits_prior_q`, or a list of monthly items), or the field in
    the latest result and in an earlier one of the run (`change="step"`: "the price went up
    since the last check"). It holds when the value moved `direction` ("up" or "down"), by
    more than `by` when one is stated (a percentage of the earlier value when `percent`).
    `change="differ"` ("in different currencies") holds when string fields named by `key`
    carry two or more values among the run's results."""

    terms: list[str] = field(default_factory=list)  # stems naming the item ("pod")
    values: list[str] = field(default_factory=list)  # a field equals one of these (any case)
    absent: list[str] = field(default_factory=list)  # stems of a field the item lacks
    key: list[str] = field(default_factory=list)  # stems naming the field tested
    flag: bool | None = None  # a true/false field named by `key` holds this value
    # a date window: a date field named by `key` lies `op` `number` `unit`s from now
    op: str = ""
    number: float | None = None
    unit: str = ""
    soft: bool = False  # untestable without the named field: free text judges instead
    # a change between two values of the numeric field named by `key`: "period" (a series in
    # one result) or "step" (two results of the run), `direction` "up" or "down"; or "differ"
    # (a string field named by `key` with two values in the run)
    change: str = ""
    direction: str = ""
    by: float | None = None  # the move must exceed this (None: any move that way)
    percent: bool = False  # `by` is a percentage of the earlier value

    def describe(self) -> str:
        what = f"an item about {'/'.join(self.terms)}" if self.terms else "an item"
        if self.change == "differ":
            return f"fields named like {'/'.join(self.key)} with different values in the run"
        if self.change:
            between = (
                "between the latest two periods of a result"
                if self.change == "period"
                else "since an earlier result of the run"
            )
            amount = f" by more than {self.by:g}{'%' if self.percent else ''}" if self.by else ""
            return f"a number named like {'/'.join(self.key)} {self.direction}{amount} {between}"
        if self.unit:
            span = f"{self.op} {self.number or 0:g} {self.unit}s"
            return f"a date field named like {'/'.join(self.key)} {span} from now"
        if self.flag is not None:
            named = "/".join(self.key)
            return f"a true/false field named like {named} that is {str(self.flag).lower()}"
        if self.values and self.key:
            return f"an item whose {'/'.join(self.key)} is {' or '.join(self.values)}"
        if self.values:
            return f"{what} with a field equal to {' or '.join(self.values)}"
        return f"{what} without {'/'.join(self.absent)}"


@dataclass(slots=True)
class Trigger:
    """When a rule applies: the paper's precondition node, made explicit."""

    kind: TriggerKind
    text: str = ""  # situation / condition text; embedded for similarity matching
    keywords: list[str] = field(default_factory=list)  # stems that must appear (DATA)
    numeric: NumericCondition | None = None
    # DATA: the condition is a negation ("currency isn't USD"): it holds only when a field of
    # the kind these values name holds some other value
    excluded: list[str] = field(default_factory=list)
    predicate: Predicate | None = None  # DATA: a compiled test over result items
    tool: str | None = None  # TOOL: the tool the rule is about
    after_tool: str | None = None  # TOOL: fire after this tool returns (None: up front)
    node_id: str | None = None  # FORGED_FROM target: the decision node before the mistake

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trigger:
        trig = dict(data)
        num = trig.get("numeric")
        trig["numeric"] = NumericCondition(**num) if num else None
        pred = trig.get("predicate")
        trig["predicate"] = Predicate(**pred) if pred else None
        trig["kind"] = TriggerKind(trig["kind"])
        return cls(**trig)


@dataclass(slots=True)
class Scope:
    """Who a rule may reach. None means 'any' for that field."""

    namespace: str = DEFAULT_NAMESPACE
    skill: str | None = None
    actor: str | None = None
    subject: str | None = None  # subject-specific rules ("for Acme, skip vpc-0old")

    def admits(self, *, namespace: str, skill: str | None, actor: str | None) -> bool:
        if self.namespace != namespace:
            return False
        if self.skill is not None and self.skill != skill:
            return False
        return self.actor is None or self.actor == actor


@dataclass(slots=True)
class Rule:
    """One compiled directive with its scope, trigger and provenance."""

    id: str
    text: str  # RULE: one imperative sentence, no justification
    type: RuleType
    trigger: Trigger
    scope: Scope
    source: RuleSource
    actor: str | None  # who said it (None for self-assessment)
    group: str  # conflict group: rules about the same behavior share it
    status: RuleStatus = RuleStatus.ACTIVE
    qualifiers: list[str] = field(default_factory=list)  # "for enterprise clients"
    support: int = 1  # supporting corrections / observations
    supporters: list[str] = field(default_factory=list)  # actors who agreed
    evidence_ids: list[str] = field(default_factory=list)
    conversation_id: str | None = None
    created_at: str = field(default_factory=utcnow)
    updated_at: str = field(default_factory=utcnow)
    superseded_by: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # edits, merges, status changes
    # values and tool names the lesson took from tool output (an error text that said "dest
    # must be 'x'"): untrusted, so the rule starts as a CANDIDATE and its guards never
    # rewrite a call to them
    from_tool_output: list[str] = field(default_factory=list)
    # when its target mistake kept recurring after it was delivered (text or channel may be
    # wrong): shown in review until a person edits or approves it; the evidence is in its
    # rule events
    flagged_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_jsonable(self)  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        return cls(
            **{
                **data,
                "type": RuleType(data["type"]),
                "source": RuleSource(data["source"]),
                "status": RuleStatus(data["status"]),
                "trigger": Trigger.from_dict(data["trigger"]),
                "scope": Scope(**data["scope"]),
            }
        )


# --------------------------------------------------------------------------- outcomes


class RuleEventKind(enum.StrEnum):
    """What happened to a rule after it was compiled: its deliveries, their outcomes, and
    every status change they caused (with the events that were its evidence)."""

    DELIVERED = "delivered"  # handed to a run at a decision point
    GUARD = "guard"  # its guard corrected or rejected a call of that run
    RECURRED = "recurred"  # the mistake it targets came back after delivery
    CONTRADICTED = "contradicted"  # the user corrected against it after delivery
    QUIET = "quiet"  # delivered, and the captured session showed nothing about it
    STATUS = "status"  # its status changed; `detail` names from, to, why and the evidence
    FLAGGED = "flagged"  # its mistake keeps recurring: a person should look at it
    UNFLAGGED = "unflagged"  # a person edited or approved it


# the kinds that say how a delivery went, one per delivered rule and captured run
OUTCOME_KINDS = (RuleEventKind.RECURRED, RuleEventKind.CONTRADICTED, RuleEventKind.QUIET)


@dataclass(slots=True)
class RuleEvent:
    """One dated fact about a rule. `run_id` names the run that delivered it (or the run a
    later capture matched), `conversation_id` the conversation that run belongs to."""

    rule_id: str
    kind: RuleEventKind
    namespace: str = DEFAULT_NAMESPACE
    at: str = field(default_factory=utcnow)
    run_id: str | None = None
    conversation_id: str | None = None
    actor: str | None = None
    decision_point: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)  # ids, indexes, scores; no user text
    id: str = field(default_factory=lambda: new_id("evt"))

    def to_dict(self) -> dict[str, Any]:
        return _to_jsonable(self)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- graph


class EdgeType(enum.StrEnum):
    """The paper's nine edge types."""

    MADE = "MADE"  # actor -> decision node
    ABOUT = "ABOUT"  # decision node -> subject
    APPLIED = "APPLIED"  # rule -> decision node where it was delivered
    LED_TO = "LED_TO"  # decision node -> next decision node (within a session)
    PRODUCED = "PRODUCED"  # decision node (tool call) -> evidence (its result)
    INFORMED_BY = "INFORMED_BY"  # decision node -> evidence that informed it (a correction)
    HAS_SUMMARY = "HAS_SUMMARY"  # session -> summary node
    FOLLOWED_BY = "FOLLOWED_BY"  # session -> next session of the same actor
    FORGED_FROM = "FORGED_FROM"  # rule -> trigger node (and -> evidence)


class EvidenceKind(enum.StrEnum):
    CORRECTION = "correction"
    ACCEPTANCE = "acceptance"
    WITHDRAWAL = "withdrawal"
    TOOL_FAILURE = "tool_failure"
    TOOL_SUCCESS = "tool_success"


@dataclass(slots=True)
class DecisionNode:
    """One step of a session: a user turn, an assistant answer, or a tool call with its result.

    `text` is the node's own content; `accumulated` is everything up to and including it. Both
    are embedded (node embedding, accumulated embedding).
    """

    id: str
    conversation_id: str
    namespace: str
    actor: str
    skill: str
    position: int  # order within the session
    kind: Literal["user", "assistant", "tool_call"]
    text: str
    accumulated: str
    message_index: int
    tool: str | None = None
    subject: str | None = None


@dataclass(slots=True)
class Evidence:
    """A piece of the trace a rule came from: who said what, when, where."""

    id: str
    kind: EvidenceKind
    namespace: str
    conversation_id: str
    actor: str | None
    message_index: int
    text: str
    timestamp: str
    source: str | None = None  # file
    node_id: str | None = None


@dataclass(slots=True)
class Edge:
    src: str
    type: EdgeType
    dst: str


@dataclass(slots=True)
class Unit:
    """What is handed to the agent at a decision point: one directive or block, one channel."""

    text: str
    channel: Channel
    rule_ids: list[str] = field(default_factory=list)


def _to_jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, list | tuple):
        return [_to_jsonable(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _to_jsonable(v) for k, v in obj.items()}
    return obj


def to_json(obj: Any) -> str:
    """Serialize any dctx record (dataclass tree) to JSON text."""
    return json.dumps(_to_jsonable(obj), ensure_ascii=False, sort_keys=True)


def to_dict(obj: Any) -> Any:
    return _to_jsonable(obj)
