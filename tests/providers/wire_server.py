"""A real HTTP server on 127.0.0.1 that speaks the model APIs' wire formats, for SDK tests.

Routes: OpenAI `POST /v1/chat/completions` and `POST /v1/embeddings`, Anthropic
`POST /v1/messages`. Each route answers from a queue of scripted replies (`script`), then from
its responder (`respond`); embeddings have a default responder (deterministic vectors), the
other routes answer HTTP 400 "unscripted" so a missing script fails loudly. Every request is
recorded with its headers and decoded JSON body.

Replies can be delayed (client timeouts), carry any status and headers (429 + retry-after,
500), or be raw text (malformed JSON). A multi-turn tool-calling conversation is a script of
`openai_tool_calls` / `anthropic_tool_use` replies ending in a plain answer; each request the
client sent is in `to(path)`, in order.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"
MESSAGES = "/v1/messages"


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list: JSON; str/bytes: sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None


Responder = Callable[[Request], Reply]


# --------------------------------------------------------------------------- reply builders


def openai_chat(
    content: str | None,
    *,
    prompt_tokens: int | None = 11,
    completion_tokens: int = 7,
    finish_reason: str = "stop",
    refusal: str | None = None,
) -> Reply:
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
    }
    if prompt_tokens is not None:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(body=body)


def anthropic_message(
    text: str,
    *,
    input_tokens: int = 13,
    output_tokens: int = 5,
    stop_reason: str = "end_turn",
    cache_read_input_tokens: int | None = None,
) -> Reply:
    usage: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    if cache_read_input_tokens is not None:
        usage["cache_read_input_tokens"] = cache_read_input_tokens
    return Reply(
        body={
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }
    )


def openai_tool_calls(
    *calls: tuple[str, str, dict[str, Any] | str], content: str | None = None
) -> Reply:
    """A chat completion that asks for tool calls: each call is (id, name, arguments); a str
    is sent as the arguments text unchanged (to script malformed JSON)."""
    reply = openai_chat(content, finish_reason="tool_calls")
    reply.body["choices"][0]["message"]["tool_calls"] = [
        {
            "id": call_id,
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for call_id, name, args in calls
    ]
    return reply


def anthropic_tool_use(*calls: tuple[str, str, dict[str, Any]], text: str | None = None) -> Reply:
    """A Messages reply that stops for tool use: each call is (id, name, input)."""
    reply = anthropic_message(text or "", stop_reason="tool_use")
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    reply.body["content"] = blocks
    return reply


def openai_error(status: int, message: str = "boom", **headers: str) -> Reply:
    return Reply(
        status=status,
        body={"error": {"message": message, "type": "test_error", "code": None}},
        headers={k.replace("_", "-"): v for k, v in headers.items()},
    )


def anthropic_error(status: int, message: str = "boom", **headers: str) -> Reply:
    kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": message}},
        headers={k.replace("_", "-"): v for k, v in headers.items()},
    )


def text_vector(text: str, dim: int) -> list[float]:
    """A deterministic (unnormalized) vector for `text`."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim).astype(np.float32).tolist()


def embeddings_responder(dim: int, *, tokens_per_input: int = 3) -> Responder:
    """Answer /v1/embeddings like OpenAI does (float or base64 encoding)."""

    def respond(request: Request) -> Reply:
        body = request.json
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        size = body.get("dimensions") or dim
        data = []
        for i, text in enumerate(inputs):
            vec = text_vector(text, size)
            if body.get("encoding_format") == "base64":
                emb: Any = base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode()
            else:
                emb = vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        data.reverse()  # clients must order by `index`, not by position
        n = tokens_per_input * len(inputs)
        return Reply(
            body={
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": n, "total_tokens": n},
            }
        )

    return respond


# --------------------------------------------------------------------------- server


class WireServer:
    """Start with `with WireServer() as srv:`; `srv.url` is http://127.0.0.1:PORT."""

    def __init__(self, *, embedding_dim: int = 8) -> None:
        self.requests: list[Request] = []
        self._queues: dict[str, deque[Reply]] = {}
        self._responders: dict[str, Responder] = {EMBEDDINGS: embeddings_responder(embedding_dim)}
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # -- lifecycle
    def __enter__(self) -> WireServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    # -- scripting
    def script(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self._queues.setdefault(path, deque()).extend(replies)

    def respond(self, path: str, responder: Responder) -> None:
        with self._lock:
            self._responders[path] = responder

    def to(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def pending(self, path: str) -> int:
        with self._lock:
            return len(self._queues.get(path, ()))

    def _reply_for(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            queue = self._queues.get(request.path)
            if queue:
                return queue.popleft()
            responder = self._responders.get(request.path)
        if responder is not None:
            return responder(request)
        return openai_error(400, f"wire_server: no reply scripted for {request.path}")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                path = self.path.split("?", 1)[0]
                reply = server._reply_for(Request("POST", path, headers, raw))
                if reply.delay:
                    time.sleep(reply.delay)
                if isinstance(reply.body, bytes):
                    payload = reply.body
                elif isinstance(reply.body, str):
                    payload = reply.body.encode("utf-8")
                else:
                    payload = json.dumps(reply.body).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
