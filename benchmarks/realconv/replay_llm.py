"""`dctx bench real --llm` from answers a model gave once, over the real OpenAI wire.

No machine of this project reaches a model API, so the LLM path is measured in two passes:

    python benchmarks/realconv/replay_llm.py record --split dev --prompts /tmp/dev_prompts.jsonl
    # a model answers each prompt under the aftermath system prompt (capture/reading/llm.py):
    #   one line per prompt, {"id": ..., "aftermath": "correction" | "one_off" | ...}
    python benchmarks/realconv/replay_llm.py replay --split dev \
        --answers benchmarks/realconv/llm_answers/dev.jsonl

`record` runs the benchmark against a local chat-completions server that keeps every turn
prompt capture sends and answers HTTP 400, so capture falls back to its offline reading; the
prompts (id = first 16 hex digits of the sha256 of the user message) go to `--prompts`.
`replay` runs it again and answers each turn prompt from `--answers`. The other LLM steps
(tool-pattern assessment, rule compilation) are not replayed: they get HTTP 400 and use the
offline result, so the numbers are those of an LLM that reads turns and nothing else. The
server is the wire server of the test suite (tests/providers/wire_server.py), so the openai
SDK, retries and the structured-output request are the real ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import threading
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "providers"))

from wire_server import CHAT, Reply, Request, WireServer, openai_chat, openai_error  # noqa: E402

from dctx.capture.reading.llm import AFTERMATH  # noqa: E402
from dctx.cli.main import app  # noqa: E402


def prompt_id(user: str) -> str:
    return hashlib.sha256(user.encode("utf-8")).hexdigest()[:16]


class Answers:
    """The responder: recorded answers for turn prompts, HTTP 400 for everything else."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.seen: dict[str, str] = {}
        self.answered: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        messages = request.json["messages"]
        if messages[0]["content"] != AFTERMATH.system:
            return openai_error(400, "only the turn step is replayed")
        user = messages[-1]["content"]
        pid = prompt_id(user)
        with self._lock:
            self.seen[pid] = user
        if pid not in self.answers:
            return openai_error(400, "no recorded answer")
        with self._lock:
            self.answered.add(pid)
        return openai_chat(json.dumps({"aftermath": self.answers[pid]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["record", "replay"])
    parser.add_argument("--split", default="dev")
    parser.add_argument("--prompts", type=Path, help="record: where the turn prompts go")
    parser.add_argument("--answers", type=Path, help="replay: the recorded answers (JSONL)")
    parser.add_argument("--show-false", default="0")
    args = parser.parse_args()
    answers: dict[str, str] = {}
    if args.mode == "replay":
        if args.answers is None:
            parser.error("replay needs --answers")
        for line in args.answers.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                answers[row["id"]] = row["aftermath"]
    elif args.prompts is None:
        parser.error("record needs --prompts")
    responder = Answers(answers)
    os.environ.setdefault("DCTX_LLM_API_KEY", "replay")
    with WireServer() as srv:
        srv.respond(CHAT, responder)
        spec = f"openai-compatible:replay@{srv.openai_url}"
        argv = ["bench", "real", "--split", args.split, "--show-false", args.show_false]
        result = CliRunner().invoke(app, [*argv, "--llm", spec])
    print(result.stdout)
    if result.exit_code != 0:
        raise SystemExit(result.exit_code)
    missing = len(responder.seen) - len(responder.answered)
    print(f"turn prompts: {len(responder.seen)}, answered from the file: {len(responder.answered)}")
    if args.mode == "replay" and missing:
        print(f"warning: {missing} turn prompts had no recorded answer (offline reading kept)")
    if args.mode == "record":
        with args.prompts.open("w", encoding="utf-8") as out:
            for pid, user in responder.seen.items():
                out.write(json.dumps({"id": pid, "prompt": user}, ensure_ascii=False) + "\n")
        print(f"{len(responder.seen)} prompts written to {args.prompts}")


if __name__ == "__main__":
    main()
