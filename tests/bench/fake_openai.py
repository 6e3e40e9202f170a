"""A small OpenAI-wire server on 127.0.0.1 for the live-mode tests, played by a scripted
"model": agent requests (they carry `tools`) get tool calls first, then an answer that
depends on what was injected; judge requests get a verdict from `judge_rule`."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JudgeRule = Callable[[str, str, str], str]  # (answer, mode, item text) -> reply text


def default_judge(answer: str, mode: str, text: str) -> str:
    """Positive items: satisfied when the answer talks about segments. Negative: satisfied
    unless the answer mentions Acme."""
    text = answer.lower()
    ok = "enterprise" in text if mode == "positive" else "acme" not in text
    return json.dumps({"answer": "yes" if ok else "no", "reason": "scripted"})


@dataclass
class FakeModel:
    calls: list[dict[str, Any]]  # tool calls to make on the first agent turn
    judge_rule: JudgeRule = default_judge
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def agent_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if "tools" in r]

    def judge_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if "tools" not in r]

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.requests.append(body)
        msgs = body["messages"]
        if "tools" in body:
            if not any(m["role"] == "tool" for m in msgs):
                return _message(None, [
                    {"id": f"call_{i}", "type": "function",
                     "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                    for i, c in enumerate(self.calls)
                ])  # fmt: skip
            told = " ".join(
                m["content"] or "" for m in msgs if m["role"] in ("system", "user")
            ).lower()
            answer = "Beta Inc grew revenue 5% quarter over quarter."
            if "segment" in told:
                answer += " By segment: enterprise grew 7%, SMB was flat."
            return _message(answer, None)
        user = msgs[-1]["content"]
        answer = re.search(r"Final answer:\n(.*?)\n\nRubric item", user, re.S)
        item = re.search(r"Rubric item \((positive|negative)\): (.*)$", user, re.S)
        assert answer and item, "judge prompt layout changed"
        return _message(self.judge_rule(answer.group(1), item.group(1), item.group(2)), None)


def _message(content: str | None, tool_calls: list[dict[str, Any]] | None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": msg,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@contextmanager
def serve(model: FakeModel) -> Iterator[str]:
    """Run the server; yields its base URL (http://127.0.0.1:PORT/v1)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self.send_response(404)
                self.end_headers()
                return
            data = json.dumps(model.reply(body)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
