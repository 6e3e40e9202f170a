"""ASGI guards in front of the HTTP API: a bound on request bodies, and Host / Origin checks.

`BodyLimit` refuses a body above `Limits.request_bytes` before it is read in full: at once
from Content-Length, or as soon as a streamed body passes the limit.

`HostCheck` stops DNS rebinding on a server without an API key. A web page can make a
browser send requests to 127.0.0.1 under its own DNS name; such requests carry that name in
Host (and Origin). Only the bind address, local names (localhost, 127.0.0.1, ::1), IP
literals (rebinding needs a DNS name) and names the operator allows pass; an Origin, when a
browser sends one, must name one of those too (a cross-site form post is refused as well).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException

from dctx.server.errors import (
    ErrorBody,
    ErrorDetail,
    ForbiddenHostError,
    RequestTooLargeError,
    detail_of,
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "localhost.localdomain"})


async def send_error(send: Send, detail: ErrorDetail) -> None:
    """Answer with the API's JSON error body."""
    body = json.dumps(ErrorBody(error=detail).model_dump(exclude_none=True)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": detail.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class BodyLimit:
    """Refuse request bodies larger than `max_bytes` with a 413 error body."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self) -> RequestTooLargeError:
        return RequestTooLargeError(
            f"the request body is larger than {self.max_bytes} bytes (the server's limit, "
            "--max-body-bytes / DCTX_MAX_BODY_BYTES); send fewer or smaller messages"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_bytes:
            await send_error(send, detail_of(self._too_large()))
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:  # a streamed body: the app's handler answers 413
                    raise HTTPException(413, str(self._too_large()))
            return message

        await self.app(scope, counted, send)


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Whether a Host / Origin host name may reach a server without an API key."""
    name = host.strip().lower()
    if name.startswith("[") and "]" in name:
        name = name[1 : name.index("]")]
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    name = name.rstrip(".")  # "localhost." is localhost
    if not name:
        return False
    if name in LOCAL_NAMES or name in {a.lower() for a in allowed}:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True  # an IP literal: no DNS name a page could rebind


class HostCheck:
    """Refuse requests whose Host or Origin is not local, the bind address or allowed."""

    def __init__(self, app: ASGIApp, *, bind_host: str, allowed: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = frozenset({bind_host.lower(), *(a.lower() for a in allowed)})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = self._problem(scope)
            if problem is not None:
                await send_error(send, detail_of(ForbiddenHostError(problem)))
                return
        await self.app(scope, receive, send)

    def _problem(self, scope: Scope) -> str | None:
        host = _header(scope, b"host")
        if host is None or not host_allowed(host, self.allowed):
            return (
                f"Host {host!r} is not this server's address; without an API key only local "
                "names are served (set --api-key, or --allowed-host NAME for a proxy's name)"
            )
        origin = _header(scope, b"origin")
        if origin is not None and origin != "null":
            netloc = urlsplit(origin).netloc
            if not netloc or not host_allowed(netloc, self.allowed):
                return (
                    f"Origin {origin!r} is another site; without an API key only pages served "
                    "from a local name may call this server"
                )
        elif origin == "null":
            return "Origin 'null' (a sandboxed or file page) may not call a server without a key"
        return None


__all__ = ["LOCAL_NAMES", "BodyLimit", "HostCheck", "host_allowed", "send_error"]
