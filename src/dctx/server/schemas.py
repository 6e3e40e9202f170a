"""Typed requests and responses of the service layer; the HTTP API and MCP tools share them,
so the OpenAPI schema and the MCP tool schemas describe the same shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from dctx.capture.roles import Grant
from dctx.errors import InvalidIdentifierError
from dctx.models import RuleStatus, SpeakerRole
from dctx.validation import DEFAULT_LIMITS, identifier


def _identifier(value: str) -> str:
    """The one identifier check (dctx.validation), as a pydantic validator."""
    try:
        return identifier(value, "value")
    except InvalidIdentifierError as exc:
        raise ValueError(f"not a valid identifier: {exc.reason}") from None


NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"

Name = Annotated[
    str,
    StringConstraints(min_length=1, max_length=DEFAULT_LIMITS.identifier_chars, pattern=r"\S"),
    AfterValidator(_identifier),
    Field(
        description="A name (actor, skill, tool, id): printable characters, no space at either "
        f"end, at most {DEFAULT_LIMITS.identifier_chars}; compared after NFC normalization."
    ),
]
Namespace = Annotated[
    str,
    StringConstraints(pattern=NAMESPACE_PATTERN),
    Field(description="Tenant: letters, digits, '.', '_' or '-', at most 64 characters."),
]
Text = Annotated[str, StringConstraints(min_length=1, max_length=20_000, pattern=r"\S")]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- shared pieces


class UnitOut(BaseModel):
    """One directive handed to the agent, and the channel to hand it through."""

    text: str
    channel: Literal["user", "system"]
    rule_ids: list[str]


class ToolStep(_Request):
    """One tool call the agent made and the result it got back."""

    tool: Name
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = Field(description="The tool result: text or any JSON value.")


class ScopeOut(BaseModel):
    namespace: str
    skill: str | None
    actor: str | None
    subject: str | None


class NumericOut(BaseModel):
    terms: list[str]
    op: str
    value: float


class PredicateOut(BaseModel):
    """A data condition compiled to a test over the items of tool results."""

    terms: list[str]
    values: list[str]
    absent: list[str]
    key: list[str] = []  # the field a soft predicate names
    flag: bool | None = None  # the true/false value a named state field must hold
    soft: bool = False  # untested where no result has that field: free text judges


class TriggerOut(BaseModel):
    kind: str
    text: str
    keywords: list[str]
    numeric: NumericOut | None
    predicate: PredicateOut | None = None
    tool: str | None
    after_tool: str | None
    node_id: str | None


class RuleOut(BaseModel):
    """A compiled rule with its scope, trigger and provenance ids."""

    id: str
    text: str
    type: str
    status: RuleStatus
    source: str
    actor: str | None
    group: str
    scope: ScopeOut
    trigger: TriggerOut
    qualifiers: list[str]
    support: int
    supporters: list[str]
    evidence_ids: list[str]
    conversation_id: str | None
    created_at: str
    updated_at: str
    superseded_by: str | None
    history: list[dict[str, Any]]
    flagged_at: str | None = Field(
        default=None,
        description="When its mistake kept recurring after delivery (review it); else null.",
    )
    # values / tools the lesson took from tool output (a candidate until it recurs or is
    # approved; its guards never rewrite a call to them)
    from_tool_output: list[str] = []


class EvidenceOut(BaseModel):
    id: str
    kind: str
    namespace: str
    conversation_id: str
    actor: str | None
    message_index: int
    text: str
    timestamp: str
    source: str | None
    node_id: str | None


class NodeOut(BaseModel):
    id: str
    conversation_id: str
    namespace: str
    actor: str
    skill: str
    position: int
    kind: str
    text: str
    accumulated: str
    message_index: int
    tool: str | None
    subject: str | None


# --------------------------------------------------------------------------- capture


class CaptureRequest(_Request):
    """One conversation in the OpenAI chat or Anthropic messages format."""

    actor: Name
    skill: Name
    messages: list[Any] = Field(
        min_length=1,
        max_length=10_000,
        description="The message list exactly as sent to / returned by the model API.",
    )
    conversation_id: Name | None = None
    timestamp: datetime | None = Field(
        default=None, description="When it happened (ISO-8601; no zone means UTC). Default: now."
    )
    speaker_role: SpeakerRole | None = Field(
        default=None,
        description="Who the user is: operator, end_user (a customer: creates no rule by "
        "default) or reviewer. Default: the role policy's (GET /roles); a user message's own "
        "`speaker_role` key wins.",
    )


class CorrectionRequest(_Request):
    """A correction a person gave the agent, as the agent saw it."""

    actor: Name = Field(description="The person who gave the correction.")
    skill: Name
    query: Text = Field(description="What the person asked.")
    answer: Text = Field(description="What the agent answered or did.")
    correction: Text = Field(description="What the person said to correct it.")
    conversation_id: Name | None = None
    speaker_role: SpeakerRole | None = Field(
        default=None, description="Who the person is; default: the role policy's."
    )


class ReviewRequest(_Request):
    """A reviewer's correction of a captured conversation, anchored to the message it is
    about; it compiles like a correction made in the conversation."""

    conversation_id: Name = Field(description="The captured conversation.")
    message_index: int = Field(ge=0, description="Index of the message the review corrects.")
    correction: Text = Field(description="What the agent should have done.")
    reviewer: Name = Field(description="Who reviews.")
    timestamp: datetime | None = Field(default=None, description="When; default: now.")


class RolePolicyModel(_Request):
    """Who may teach the agent in a namespace or skill. Roles: operator, end_user, reviewer.
    Grants: rules (in the speaker's scope), team (every actor of the skill), personal (only a
    preference stated as their own, for them alone), none. Tool lessons are learned from
    every session whatever the role."""

    default_role: SpeakerRole = Field(
        default=SpeakerRole.OPERATOR, description="Who an unmarked user turn is."
    )
    grants: dict[SpeakerRole, Grant] = Field(
        default_factory=dict, description="What each role may create; unnamed roles: default."
    )


class CaptureResponse(BaseModel):
    """What a capture learned: counts, and the rules added or changed."""

    sessions: int
    messages: int
    corrections: int
    withdrawals: int
    tool_signals: int
    added: list[RuleOut]
    changed: list[RuleOut]
    unchanged: list[str] = Field(
        default=[], description="Conversations captured before with the same content: skipped."
    )
    reader: str = Field(
        default="",
        description="What read the turns: 'learned:<version>' offline, 'llm:<provider:model>'.",
    )


# --------------------------------------------------------------------------- guidance and runs


class GuidanceRequest(_Request):
    """A run described in full: who, which skill, the query and the tool steps so far."""

    actor: Name
    skill: Name
    query: Text
    tools: list[Name] | None = Field(
        default=None, description="Tools offered to the run; null: unknown."
    )
    steps: list[ToolStep] = Field(default_factory=list, max_length=500)
    conversation_id: Name | None = Field(
        default=None,
        description="The conversation these steps belong to: when given, what applies is "
        "recorded as delivered to it (once per rule), so capturing the conversation under "
        "this id records how each rule did. Without it nothing is written.",
    )
    token_budget: int | None = Field(default=None, ge=1, le=100_000)


class StepGuidance(BaseModel):
    decision_point: int
    tool: str
    units: list[UnitOut] = Field(description="Rules this step newly triggered (stage 2).")


class GuidanceResponse(BaseModel):
    """Stage 1 (before the first model call) and stage 2 (after each step)."""

    messages: list[dict[str, Any]] = Field(
        description="Stage 1 as a [user, assistant] pair to put before the query; [] if none."
    )
    units: list[UnitOut] = Field(description="Stage-1 units.")
    steps: list[StepGuidance]
    latest: list[UnitOut] = Field(
        description="What is new at the last decision point (stage 1 when there are no steps)."
    )
    system: str = Field(description="System-prompt block with every stage-2 rule so far.")


class StartRunRequest(_Request):
    actor: Name
    skill: Name
    query: Text
    tools: list[Name] | None = None
    token_budget: int | None = Field(default=None, ge=1, le=100_000)
    conversation_id: Name | None = Field(
        default=None,
        description="The conversation this run belongs to. What it delivers is recorded, so "
        "capturing the conversation under this id (or the run id) records how each rule did.",
    )


class RunStarted(BaseModel):
    run_id: str
    expires_in_s: int = Field(description="Idle seconds before the server forgets the run.")
    messages: list[dict[str, Any]]
    units: list[UnitOut]


class ObserveRequest(_Request):
    tool: Name
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any


class Observed(BaseModel):
    run_id: str
    decision_point: int
    units: list[UnitOut] = Field(description="Rules this tool result newly triggered.")
    system: str


# --------------------------------------------------------------------------- rules


class RuleFilter(_Request):
    actor: Name | None = None
    skill: Name | None = None
    status: list[RuleStatus] | None = None
    flagged: bool = Field(
        default=False, description="Only rules whose mistake kept recurring after delivery."
    )
    stale: bool = Field(
        default=False, description="Only active rules no run was given for `days` days."
    )
    days: int | None = Field(
        default=None, ge=1, le=36_500, description="Idle days for `stale` (default 90)."
    )


class RuleEventOut(BaseModel):
    """One dated fact about a rule: a delivery, how it went, a status change and why."""

    id: str
    rule_id: str
    kind: str
    namespace: str
    at: str
    run_id: str | None
    conversation_id: str | None
    actor: str | None
    decision_point: int | None
    detail: dict[str, Any]


class PairOut(BaseModel):
    a: str
    b: str
    similarity: float
    same_scope: bool


class StaleOut(BaseModel):
    rule: str
    last_triggered: str | None
    idle_days: float


class RulebookHealth(BaseModel):
    """A rulebook on one screen (`dctx health`)."""

    namespace: str
    counts: dict[str, int] = Field(description="Rules per status, plus `flagged`.")
    flagged: list[str]
    delivered: int = Field(description="Live rules delivered at least once.")
    never_triggered: list[str] = Field(description="Active rules never delivered.")
    stale: list[StaleOut]
    stale_days: int
    outcomes: dict[str, int] = Field(description="Rule events per kind.")
    duplicates: list[PairOut]
    near_duplicates: list[PairOut]


class EditRequest(_Request):
    """A person's fix of a rule: its text, its trigger, or both."""

    text: Text | None = Field(None, description="The rule's new text: one imperative sentence.")
    trigger: Text | None = Field(
        None,
        description="The new trigger: 'always', 'query: TEXT', 'data: CONDITION' or "
        "'tool: NAME [after OTHER]'. A data condition is compiled to a threshold, a negated "
        "value, a predicate over result items, or words that must all be seen.",
    )

    @model_validator(mode="after")
    def _something(self) -> EditRequest:
        if self.text is None and self.trigger is None:
            raise ValueError("pass the new 'text', the new 'trigger', or both")
        return self


class ConflictOut(BaseModel):
    """A conflict group resolved for one actor: which rule wins, and why."""

    group: str
    actor: str
    reason: Literal["no_conflict", "own_rule", "majority", "abstain"]
    winners: list[str]
    winner_texts: list[str]
    members: list[str]
    support: dict[str, int]
    lost: bool = Field(description="The explained rule is a member kept out for this actor.")
    summary: str


class Explanation(BaseModel):
    """Where a rule came from: the evidence (who said what, when) and its trigger node."""

    rule: RuleOut
    evidence: list[EvidenceOut]
    trigger_node: NodeOut | None
    conflict: ConflictOut | None = Field(
        None, description="With ?actor=: how the rule's conflict group is resolved for them."
    )
    outcomes: list[RuleEventOut] = Field(
        default=[], description="Deliveries, how they went, status changes, oldest first."
    )
    outcome_counts: dict[str, int] = {}


class Forgotten(BaseModel):
    actor: str
    namespace: str
    deleted: dict[str, int] = Field(description="Rows deleted per table.")


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    store: str = Field(description="Store backend scheme, e.g. sqlite or postgresql.")
    embedder: str
    open_runs: int


__all__ = [
    "NAMESPACE_PATTERN",
    "CaptureRequest",
    "CaptureResponse",
    "CorrectionRequest",
    "EditRequest",
    "EvidenceOut",
    "Explanation",
    "Forgotten",
    "GuidanceRequest",
    "GuidanceResponse",
    "Health",
    "NodeOut",
    "ObserveRequest",
    "Observed",
    "PairOut",
    "ReviewRequest",
    "RolePolicyModel",
    "RuleEventOut",
    "RuleFilter",
    "RuleOut",
    "RulebookHealth",
    "RunStarted",
    "StaleOut",
    "StartRunRequest",
    "StepGuidance",
    "ToolStep",
    "UnitOut",
]
