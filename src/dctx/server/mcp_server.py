"""`dctx mcp`: the Model Context Protocol server (stdio and streamable HTTP) over `DctxService`.

An agent calls `get_guidance` before its first model call and again after each tool result
(passing the steps so far): MCP clients are usually stateless between tool calls, so guidance
is replayed from the context the agent sends. Errors are MCP tool errors whose text is the
same `ErrorDetail` JSON the HTTP API returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from dctx import __version__
from dctx.errors import ConfigError, DctxError, MissingDependencyError
from dctx.models import RuleStatus, SpeakerRole
from dctx.server.errors import (
    API_KEY_HEADER,
    AuthError,
    ErrorBody,
    ErrorDetail,
    detail_of,
    key_matches,
    validation_detail,
)
from dctx.server.schemas import (
    CaptureRequest,
    CaptureResponse,
    CorrectionRequest,
    Explanation,
    Forgotten,
    GuidanceRequest,
    GuidanceResponse,
    Name,
    Namespace,
    ReviewRequest,
    RolePolicyModel,
    RulebookHealth,
    RuleEventOut,
    RuleFilter,
    RuleOut,
    Text,
    ToolStep,
)
from dctx.server.service import DctxService

try:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError("The dctx MCP server (dctx mcp)", "mcp", "mcp") from exc

T = TypeVar("T")

INSTRUCTIONS = (
    "dctx is the agent's behavioral memory. Call get_guidance before answering (and again "
    "after each tool result, passing the steps so far) and follow every RULE it returns. When "
    "the user corrects you, call record_correction so the lesson is kept for next time."
)

NamespaceArg = Annotated[
    Namespace | None, Field(description="Tenant; default: the server's --namespace.")
]
ActorArg = Annotated[
    Name | None,
    Field(description="Who the agent acts for (whose rules apply); default: --actor."),
]
SkillArg = Annotated[
    Name | None, Field(description="The agent's skill or role; default: the server's --skill.")
]
RuleIdArg = Annotated[Name, Field(description="A rule id, as list_rules or search_rules return.")]
StatusArg = Annotated[
    list[RuleStatus] | None, Field(description="Only rules with these statuses; default: all.")
]
AuthorArg = Annotated[Name | None, Field(description="Only rules this actor taught.")]
SkillFilterArg = Annotated[Name | None, Field(description="Only rules for this skill.")]
PolicySkillArg = Annotated[
    Name | None, Field(description="The skill the policy is for; default: the whole namespace.")
]
SpeakerRoleArg = Annotated[
    SpeakerRole | None,
    Field(description="Who the user is (operator, end_user, reviewer); default: the policy's."),
]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
REVERSIBLE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)


class Deleted(BaseModel):
    """What delete_rule removed."""

    rule_id: str
    deleted: bool


def _call(fn: Callable[[], T]) -> T:
    """Run a service call; dctx and validation errors become tool errors with JSON text."""
    try:
        return fn()
    except DctxError as exc:
        raise ToolError(_error_text(detail_of(exc))) from exc
    except ValidationError as exc:
        raise ToolError(_error_text(validation_detail(list(exc.errors())))) from exc  # type: ignore[arg-type]


def _error_text(detail: ErrorDetail) -> str:
    return json.dumps(ErrorBody(error=detail).model_dump(exclude_none=True))


class _DctxMCP(MCPServer[Any]):
    """MCPServer whose tool errors are the API's JSON error body and nothing else.

    The SDK checks arguments against the tool schema before the tool runs and reports a
    mismatch as pydantic's text behind "Error executing tool ..."; here it becomes the same
    `validation_error` body the HTTP API sends, and a dctx error keeps its JSON unprefixed.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # a crash: the SDK logs it and sends no internals
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                errors = list(cause.errors())
                raise ToolError(_error_text(validation_detail(errors))) from cause  # type: ignore[arg-type]
            if isinstance(cause, ToolError):  # raised by `_call`: already the JSON body
                raise ToolError(str(cause)) from cause
            raise ToolError(
                _error_text(ErrorDetail(code="bad_request", status=400, message=str(exc)))
            ) from exc


def _defaulted(given: str | None, default: str | None, name: str) -> str:
    """A tool's actor/skill, else the server's default; neither is a bad_config tool error."""
    value = given or default
    if not value:
        problem = ConfigError(
            f"{name} is required: pass {name}, or start the server with dctx mcp --{name} NAME"
        )
        raise ToolError(_error_text(detail_of(problem)))
    return value


def create_mcp(
    service: DctxService,
    *,
    namespace: str = "default",
    actor: str | None = None,
    skill: str | None = None,
) -> MCPServer[Any]:
    """An MCPServer whose tools call `service`. `namespace`, `actor` and `skill` are what a
    tool call that names none uses (so an agent serving one user can leave them out)."""
    server: MCPServer[Any] = _DctxMCP(
        "dctx", title="dctx behavioral memory", instructions=INSTRUCTIONS, version=__version__
    )
    default_actor, default_skill = actor, skill

    def ns(given: str | None) -> str:
        return given or namespace

    def who(actor: str | None, skill: str | None) -> tuple[str, str]:
        return (
            _defaulted(actor, default_actor, "actor"),
            _defaulted(skill, default_skill, "skill"),
        )

    @server.tool(title="Get guidance", annotations=REVERSIBLE)
    def get_guidance(
        query: Annotated[Text, Field(description="The user's request, as they wrote it.")],
        steps: Annotated[
            list[ToolStep],
            Field(description="Tool calls made so far, each with its result, in order."),
        ] = [],  # noqa: B006 - never mutated; the schema shows the default
        tools: Annotated[
            list[Name] | None, Field(description="Tools the agent can call (scopes rules).")
        ] = None,
        conversation_id: Annotated[
            Name | None,
            Field(
                description="Your id for this conversation: pass the same one to "
                "capture_session later, so dctx learns how each rule it gave you did."
            ),
        ] = None,
        actor: ActorArg = None,
        skill: SkillArg = None,
        namespace: NamespaceArg = None,
    ) -> GuidanceResponse:
        """Rules that apply now: stage 1 (before the run) and what the latest tool result
        triggers. Follow every RULE in `latest`; `messages` is the stage-1 pair to prepend.
        Stores nothing, except, with a conversation_id, which rules were given to it (once
        per rule)."""
        a, k = who(actor, skill)
        return _call(
            lambda: service.guidance(
                ns(namespace),
                GuidanceRequest(
                    actor=a,
                    skill=k,
                    query=query,
                    tools=tools,
                    steps=steps,
                    conversation_id=conversation_id,
                ),
            )
        )

    @server.tool(title="Record a correction", annotations=WRITES)
    def record_correction(
        query: Annotated[Text, Field(description="The user's request.")],
        answer: Annotated[Text, Field(description="Your answer that the user corrected.")],
        correction: Annotated[Text, Field(description="What the user said to correct it.")],
        actor: ActorArg = None,
        skill: SkillArg = None,
        namespace: NamespaceArg = None,
        speaker_role: SpeakerRoleArg = None,
    ) -> CaptureResponse:
        """Keep a correction the user just gave: their query, your answer, and what they said
        to correct it. Returns the rules learned."""
        a, k = who(actor, skill)
        return _call(
            lambda: service.record_correction(
                ns(namespace),
                CorrectionRequest(
                    actor=a,
                    skill=k,
                    query=query,
                    answer=answer,
                    correction=correction,
                    speaker_role=speaker_role,
                ),
            )
        )

    @server.tool(title="Capture a session", annotations=WRITES)
    def capture_session(
        messages: Annotated[
            list[Any], Field(description="OpenAI chat or Anthropic messages list.")
        ],
        conversation_id: Annotated[
            Name | None, Field(description="Your id for the conversation.")
        ] = None,
        actor: ActorArg = None,
        skill: SkillArg = None,
        namespace: NamespaceArg = None,
        speaker_role: SpeakerRoleArg = None,
    ) -> CaptureResponse:
        """Learn from a whole conversation. A malformed message writes nothing and the error
        names its index and field."""
        a, k = who(actor, skill)
        return _call(
            lambda: service.capture(
                ns(namespace),
                CaptureRequest(
                    actor=a,
                    skill=k,
                    messages=messages,
                    conversation_id=conversation_id,
                    speaker_role=speaker_role,
                ),
            )
        )

    @server.tool(title="Review a conversation", annotations=WRITES)
    def add_review(
        conversation_id: Annotated[Name, Field(description="The captured conversation.")],
        message_index: Annotated[
            int, Field(ge=0, description="Index of the message the review corrects.")
        ],
        correction: Annotated[Text, Field(description="What the agent should have done.")],
        reviewer: Annotated[Name, Field(description="Who reviews.")],
        namespace: NamespaceArg = None,
    ) -> CaptureResponse:
        """A reviewer's correction of a finished, captured conversation, anchored to the
        message it corrects; it compiles like a correction made in the conversation."""
        return _call(
            lambda: service.review(
                ns(namespace),
                ReviewRequest(
                    conversation_id=conversation_id,
                    message_index=message_index,
                    correction=correction,
                    reviewer=reviewer,
                ),
            )
        )

    @server.tool(title="Get the role policy", annotations=READ_ONLY)
    def get_role_policy(
        skill: PolicySkillArg = None, namespace: NamespaceArg = None
    ) -> RolePolicyModel:
        """Who may teach the agent: the role an unmarked user has and what each role may
        create (the skill's policy, else the namespace's, else the default: operator)."""
        return _call(lambda: service.role_policy(ns(namespace), skill))

    @server.tool(title="Set the role policy", annotations=REVERSIBLE)
    def set_role_policy(
        policy: Annotated[
            RolePolicyModel | None,
            Field(description="The policy; null removes the one set there."),
        ],
        skill: PolicySkillArg = None,
        namespace: NamespaceArg = None,
    ) -> RolePolicyModel:
        """Set who may teach what in the namespace or one skill; returns the policy in force."""
        return _call(lambda: service.set_role_policy(ns(namespace), skill, policy))

    @server.tool(title="List rules", annotations=READ_ONLY)
    def list_rules(
        actor: AuthorArg = None,
        skill: SkillFilterArg = None,
        status: StatusArg = None,
        flagged: Annotated[
            bool, Field(description="Only rules whose mistake kept recurring after delivery.")
        ] = False,
        stale: Annotated[
            bool, Field(description="Only active rules no run was given for `days` days.")
        ] = False,
        days: Annotated[
            int | None, Field(ge=1, le=36_500, description="Idle days for `stale` (90).")
        ] = None,
        namespace: NamespaceArg = None,
    ) -> list[RuleOut]:
        """Rules in the namespace, oldest first, filtered by author actor, skill and status;
        `flagged` lists the ones to review, `stale` the ones no run was given lately."""
        return _call(
            lambda: service.list_rules(
                ns(namespace),
                RuleFilter(
                    actor=actor,
                    skill=skill,
                    status=status,
                    flagged=flagged,
                    stale=stale,
                    days=days,
                ),
            )
        )

    @server.tool(title="Rule outcomes", annotations=READ_ONLY)
    def rule_outcomes(rule_id: RuleIdArg, namespace: NamespaceArg = None) -> list[RuleEventOut]:
        """How a rule did: each delivery, guard, recurrence of its mistake, correction
        against it, and every status change with the events that were its evidence."""
        return _call(lambda: service.outcomes(ns(namespace), rule_id))

    @server.tool(title="Rulebook health", annotations=READ_ONLY)
    def rulebook_health(
        days: Annotated[
            int | None, Field(ge=1, le=36_500, description="Idle days that make a rule stale.")
        ] = None,
        namespace: NamespaceArg = None,
    ) -> RulebookHealth:
        """The rulebook on one screen: rules per status, flagged, never triggered, stale,
        duplicates and near-duplicates."""
        return _call(lambda: service.rulebook_health(ns(namespace), days))

    @server.tool(title="Search rules", annotations=READ_ONLY)
    def search_rules(
        query: Annotated[Text, Field(description="Words to find in rule text and triggers.")],
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many.")] = 10,
        actor: AuthorArg = None,
        skill: SkillFilterArg = None,
        status: StatusArg = None,
        namespace: NamespaceArg = None,
    ) -> list[RuleOut]:
        """Rules whose text or trigger matches `query` (full text), best match first."""
        return _call(
            lambda: service.search_rules(
                ns(namespace),
                query,
                RuleFilter(actor=actor, skill=skill, status=status),
                limit=limit,
            )
        )

    @server.tool(title="Explain a rule", annotations=READ_ONLY)
    def explain_rule(rule_id: RuleIdArg, namespace: NamespaceArg = None) -> Explanation:
        """Where a rule came from: who said what, when, in which session and message."""
        return _call(lambda: service.explain(ns(namespace), rule_id))

    @server.tool(title="Disable a rule", annotations=REVERSIBLE)
    def disable_rule(rule_id: RuleIdArg, namespace: NamespaceArg = None) -> RuleOut:
        """Stop delivering a rule; it is kept with its history (approve_rule turns it on)."""
        return _call(lambda: service.set_status(ns(namespace), rule_id, "disable"))

    @server.tool(title="Approve a rule", annotations=REVERSIBLE)
    def approve_rule(rule_id: RuleIdArg, namespace: NamespaceArg = None) -> RuleOut:
        """Make a rule active: one waiting for review, a candidate, or a disabled one."""
        return _call(lambda: service.set_status(ns(namespace), rule_id, "approve"))

    @server.tool(title="Reject a rule", annotations=REVERSIBLE)
    def reject_rule(rule_id: RuleIdArg, namespace: NamespaceArg = None) -> RuleOut:
        """Say a candidate (or a rule waiting for review) is wrong: it is disabled, never
        injected, kept with its history (approve_rule undoes it)."""
        return _call(lambda: service.set_status(ns(namespace), rule_id, "reject"))

    @server.tool(title="Delete a rule", annotations=DESTRUCTIVE)
    def delete_rule(rule_id: RuleIdArg, namespace: NamespaceArg = None) -> Deleted:
        """Delete a rule, its vectors and edges for good (disable_rule keeps it)."""
        _call(lambda: service.delete_rule(ns(namespace), rule_id))
        return Deleted(rule_id=rule_id, deleted=True)

    @server.tool(title="Forget an actor", annotations=DESTRUCTIVE)
    def forget_actor(
        actor: Annotated[Name, Field(description="The actor whose data is deleted.")],
        namespace: NamespaceArg = None,
    ) -> Forgotten:
        """Delete everything learned from an actor in the namespace (right to be forgotten).
        Cannot be undone."""
        return _call(lambda: service.forget_actor(ns(namespace), actor))

    return server


class _KeyGate:
    """ASGI wrapper: every HTTP request needs the X-API-Key header (constant-time check)."""

    def __init__(self, app: Any, api_key: str) -> None:
        self.app = app
        self.api_key = api_key

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            wanted = API_KEY_HEADER.lower().encode()
            given = next((v for k, v in scope.get("headers", []) if k == wanted), None)
            if not key_matches(self.api_key, given.decode("latin-1") if given else None):
                detail = detail_of(AuthError(f"missing or wrong {API_KEY_HEADER} header"))
                body = _error_text(detail).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_mcp(
    service: DctxService,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8766,
    api_key: str | None = None,
    namespace: str = "default",
    actor: str | None = None,
    skill: str | None = None,
) -> None:
    """Serve until the client disconnects (stdio) or the process is interrupted (http)."""
    server = create_mcp(service, namespace=namespace, actor=actor, skill=skill)
    if transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app: Any = server.streamable_http_app(host=host)
    if api_key:
        app = _KeyGate(app, api_key)
    uvicorn.run(app, host=host, port=port, log_level="warning")


__all__ = ["INSTRUCTIONS", "Deleted", "create_mcp", "run_mcp"]
