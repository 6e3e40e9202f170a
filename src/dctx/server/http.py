"""`dctx serve`: the HTTP API, a thin FastAPI layer over `DctxService`.

Every route under /v1/{namespace}/ is scoped to that tenant. Errors are `ErrorBody` JSON with
the status `server.errors` assigns; a request that fails writes nothing. With an API key set,
every route but /health needs the `X-API-Key` header, the schema and docs (/openapi.json,
/docs, /redoc) included: they map the whole API, and a client can send the header. Without a
key, Host and Origin must be local names or the bind address (`transport_guard.HostCheck`),
which stops DNS rebinding. Bodies above `Limits.request_bytes` are refused with a 413.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Any

from dctx.errors import DctxError, MissingDependencyError, TraceFormatError
from dctx.server.docs import add_offline_docs
from dctx.server.errors import (
    API_KEY_HEADER,
    INTERNAL,
    AuthError,
    ErrorBody,
    ErrorDetail,
    detail_of,
    http_detail,
    key_matches,
    validation_detail,
)
from dctx.server.schemas import (
    NAMESPACE_PATTERN,
    CaptureRequest,
    CaptureResponse,
    CorrectionRequest,
    EditRequest,
    Explanation,
    Forgotten,
    GuidanceRequest,
    GuidanceResponse,
    Health,
    Observed,
    ObserveRequest,
    ReviewRequest,
    RolePolicyModel,
    RulebookHealth,
    RuleEventOut,
    RuleFilter,
    RuleOut,
    RunStarted,
    StartRunRequest,
)
from dctx.server.service import DctxService
from dctx.validation import DEFAULT_LIMITS

log = logging.getLogger("dctx.server")

try:
    from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, Response
    from fastapi.security import APIKeyHeader
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from dctx.server.transport_guard import BodyLimit, HostCheck
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError("The dctx HTTP API (dctx serve)", "server", "fastapi") from exc

NamespacePath = Annotated[
    str, Path(pattern=NAMESPACE_PATTERN, description="Tenant the request is scoped to.")
]
RuleIdPath = Annotated[str, Path(min_length=1, max_length=200, description="A rule id.")]
RunIdPath = Annotated[str, Path(min_length=1, max_length=200, description="A run id.")]
ActorPath = Annotated[str, Path(min_length=1, max_length=200, pattern=r"\S")]
SkillQuery = Annotated[
    str | None,
    Query(min_length=1, max_length=200, description="A skill; absent: the whole namespace."),
]
KeyHeader = Annotated[str | None, Depends(APIKeyHeader(name=API_KEY_HEADER, auto_error=False))]

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Bad request"},
    404: {"model": ErrorBody, "description": "No such rule or run in this namespace"},
    409: {"model": ErrorBody, "description": "A conversation id captured before, other content"},
    422: {"model": ErrorBody, "description": "Malformed request or trace"},
    503: {"model": ErrorBody, "description": "The store failed"},
}


def _error_response(detail: ErrorDetail) -> JSONResponse:
    return JSONResponse(
        ErrorBody(error=detail).model_dump(exclude_none=True), status_code=detail.status
    )


def create_app(
    service: DctxService,
    *,
    api_key: str | None = None,
    bind_host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_LIMITS.request_bytes,
) -> FastAPI:
    """The FastAPI app over `service`; `api_key` turns on X-API-Key auth (constant-time).

    Without a key, only requests whose Host / Origin is local, `bind_host` or one of
    `allowed_hosts` are served."""
    open_docs = not api_key  # with a key, _docs_routes serves them behind it
    app = FastAPI(
        title="dctx",
        summary="Decision Context: behavioral memory for tool-using LLM agents.",
        version=service.health().version,
        docs_url=None,  # FastAPI's pages load their scripts from a CDN; see server.docs
        redoc_url=None,
        openapi_url="/openapi.json" if open_docs else None,
    )
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    if not api_key:
        app.add_middleware(HostCheck, bind_host=bind_host, allowed=allowed_hosts)
    errors = dict(_ERRORS)
    dependencies: list[Any] = []
    if api_key:

        def require_key(given: KeyHeader) -> None:
            if not key_matches(api_key, given):
                raise AuthError(f"missing or wrong {API_KEY_HEADER} header")

        dependencies.append(Depends(require_key))
        errors[401] = {"model": ErrorBody, "description": "Missing or wrong API key"}
        _docs_routes(app, Depends(require_key))
    else:
        add_offline_docs(app)

    @app.exception_handler(DctxError)
    async def dctx_error(_: Request, exc: DctxError) -> JSONResponse:
        return _error_response(detail_of(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error_response(validation_detail(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error_response(http_detail(exc.status_code, str(exc.detail)))

    @app.exception_handler(RecursionError)
    async def too_deep(_: Request, exc: RecursionError) -> JSONResponse:
        return _error_response(
            detail_of(
                TraceFormatError(
                    f"the request is nested too deeply to process; the limit is "
                    f"{DEFAULT_LIMITS.nesting_depth} levels"
                )
            )
        )

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in the HTTP API", exc_info=exc)
        return _error_response(INTERNAL)

    @app.get("/health", tags=["health"])
    def health() -> Health:
        """Liveness and what the server runs on; needs no API key."""
        return service.health()

    v1 = APIRouter(prefix="/v1/{namespace}", dependencies=dependencies, responses=errors)
    _capture_routes(v1, service)
    _run_routes(v1, service)
    _rule_routes(v1, service)
    app.include_router(v1)
    return app


def _docs_routes(app: FastAPI, key: Any) -> None:
    """/openapi.json behind the API key (FastAPI serves it openly); /docs and /redoc too."""

    @app.get("/openapi.json", include_in_schema=False, dependencies=[key])
    def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    add_offline_docs(app, dependencies=[key])


def _capture_routes(v1: APIRouter, svc: DctxService) -> None:
    @v1.post("/capture", tags=["capture"])
    def capture(namespace: NamespacePath, body: CaptureRequest) -> CaptureResponse:
        """Learn from one conversation (OpenAI or Anthropic messages). All or nothing."""
        return svc.capture(namespace, body)

    @v1.post("/corrections", tags=["capture"])
    def record_correction(namespace: NamespacePath, body: CorrectionRequest) -> CaptureResponse:
        """Record a correction given live: the query, the agent's answer, the correction."""
        return svc.record_correction(namespace, body)

    @v1.post("/reviews", tags=["capture"])
    def review(namespace: NamespacePath, body: ReviewRequest) -> CaptureResponse:
        """A reviewer's correction of a captured conversation, anchored to a message."""
        return svc.review(namespace, body)

    @v1.get("/roles", tags=["roles"])
    def role_policy(namespace: NamespacePath, skill: SkillQuery = None) -> RolePolicyModel:
        """The role policy in force (the skill's, else the namespace's, else the default)."""
        return svc.role_policy(namespace, skill)

    @v1.put("/roles", tags=["roles"])
    def set_role_policy(
        namespace: NamespacePath, body: RolePolicyModel, skill: SkillQuery = None
    ) -> RolePolicyModel:
        """Set who may teach what in the namespace, or in one skill (`?skill=`)."""
        return svc.set_role_policy(namespace, skill, body)

    @v1.delete("/roles", tags=["roles"])
    def reset_role_policy(namespace: NamespacePath, skill: SkillQuery = None) -> RolePolicyModel:
        """Remove the policy set there; returns the one in force now."""
        return svc.set_role_policy(namespace, skill, None)

    @v1.delete("/actors/{actor}", tags=["privacy"])
    def forget_actor(namespace: NamespacePath, actor: ActorPath) -> Forgotten:
        """Delete everything derived from an actor in this namespace."""
        return svc.forget_actor(namespace, actor)


def _run_routes(v1: APIRouter, svc: DctxService) -> None:
    @v1.post("/guidance", tags=["inject"])
    def guidance(namespace: NamespacePath, body: GuidanceRequest) -> GuidanceResponse:
        """Stateless: what applies to a run given its query and the tool steps so far."""
        return svc.guidance(namespace, body)

    @v1.post("/runs", tags=["inject"])
    def start_run(namespace: NamespacePath, body: StartRunRequest) -> RunStarted:
        """Start a run kept on the server; stage-1 guidance comes back with its id."""
        return svc.start_run(namespace, body)

    @v1.post("/runs/{run_id}/observe", tags=["inject"])
    def observe(namespace: NamespacePath, run_id: RunIdPath, body: ObserveRequest) -> Observed:
        """Report a tool result; returns the rules it newly triggers (stage 2)."""
        return svc.observe(namespace, run_id, body)

    @v1.delete("/runs/{run_id}", tags=["inject"], status_code=204)
    def end_run(namespace: NamespacePath, run_id: RunIdPath) -> Response:
        """Forget a run before its TTL ends."""
        svc.end_run(namespace, run_id)
        return Response(status_code=204)


def _rule_routes(v1: APIRouter, svc: DctxService) -> None:
    @v1.get("/rules", tags=["rules"])
    def list_rules(
        namespace: NamespacePath,
        flt: Annotated[RuleFilter, Query()],
    ) -> list[RuleOut]:
        """Rules in this namespace, filtered by author actor, scope skill and status."""
        return svc.list_rules(namespace, flt)

    @v1.get("/rules/{rule_id}", tags=["rules"])
    def get_rule(namespace: NamespacePath, rule_id: RuleIdPath) -> RuleOut:
        return svc.get_rule(namespace, rule_id)

    @v1.patch("/rules/{rule_id}", tags=["rules"])
    def edit_rule(namespace: NamespacePath, rule_id: RuleIdPath, body: EditRequest) -> RuleOut:
        """Replace a rule's text and/or trigger (the old ones stay in its history)."""
        return svc.edit_rule(namespace, rule_id, body)

    @v1.delete("/rules/{rule_id}", tags=["rules"], status_code=204)
    def delete_rule(namespace: NamespacePath, rule_id: RuleIdPath) -> Response:
        svc.delete_rule(namespace, rule_id)
        return Response(status_code=204)

    @v1.get("/rules/{rule_id}/explain", tags=["rules"])
    def explain(
        namespace: NamespacePath,
        rule_id: RuleIdPath,
        actor: Annotated[str | None, Query(description="Resolve its conflict group for.")] = None,
        skill: Annotated[str | None, Query(description="The actor's skill.")] = None,
    ) -> Explanation:
        """Provenance: who said what, when, in which session and message, and outcomes; with
        `actor`, how the rule's conflict group is resolved for that actor (winner and why)."""
        return svc.explain(namespace, rule_id, actor, skill)

    @v1.get("/rules/{rule_id}/outcomes", tags=["rules"])
    def outcomes(namespace: NamespacePath, rule_id: RuleIdPath) -> list[RuleEventOut]:
        """How the rule did: deliveries, guards, recurrences, contradictions, status changes."""
        return svc.outcomes(namespace, rule_id)

    @v1.get("/health", tags=["rules"])
    def rulebook_health(
        namespace: NamespacePath,
        days: Annotated[int | None, Query(ge=1, le=36_500)] = None,
    ) -> RulebookHealth:
        """The rulebook on one screen: counts per status, flagged, never triggered, stale,
        duplicates (`dctx health`)."""
        return svc.rulebook_health(namespace, days)

    for action in ("disable", "enable", "approve", "reject"):
        _status_route(v1, svc, action)


def _status_route(v1: APIRouter, svc: DctxService, action: str) -> None:
    def change(namespace: NamespacePath, rule_id: RuleIdPath) -> RuleOut:
        return svc.set_status(namespace, rule_id, action)

    v1.add_api_route(
        f"/rules/{{rule_id}}/{action}",
        change,
        methods=["POST"],
        tags=["rules"],
        name=f"{action}_rule",
        summary=f"{action.capitalize()} a rule",
    )


def serve(
    service: DctxService,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    api_key: str | None = None,
    allowed_hosts: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_LIMITS.request_bytes,
) -> None:
    """Run the API with uvicorn until interrupted."""
    try:
        import uvicorn
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError("dctx serve", "server", "uvicorn") from exc
    app = create_app(
        service,
        api_key=api_key,
        bind_host=host,
        allowed_hosts=allowed_hosts,
        max_body_bytes=max_body_bytes,
    )
    uvicorn.run(app, host=host, port=port, log_level="info")


__all__ = ["create_app", "serve"]
