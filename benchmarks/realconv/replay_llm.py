"""`dctx bench real --llm` from answers a model gave once, over the real OpenAI wire.

No machine of this project reaches a model API, so the LLM path is measured in passes:

    python benchmarks/realconv/replay_llm.py record --split dev --prompts /tmp/dev_prompts.jsonl
    # a model answers each turn prompt under the aftermath system prompt (capture/reading/llm.py):
    #   one line per prompt, {"id": ..., "aftermath": "correction" | "one_off" | ...}
    python benchmarks/realconv/replay_llm.py record --split dev \
        --answers benchmarks/realconv/llm_answers/dev.jsonl --compile-prompts /tmp/dev_compile.jsonl
    # a model answers each compile prompt under its own system prompt (compile/compiler_llm.py):
    #   one line per prompt, {"id": ..., "answer": {"rules": [...]}}
    python benchmarks/realconv/replay_llm.py check --compile-answers /tmp/dev_c*.jsonl \
        --against /tmp/dev_compile.jsonl   # well-formed, and every prompt answered?
    python benchmarks/realconv/replay_llm.py replay --split dev \
        --answers benchmarks/realconv/llm_answers/dev.jsonl --compile-answers /tmp/dev_c*.jsonl

The benchmark runs against a local chat-completions server that answers each step's prompt
(id = first 16 hex digits of the sha256 of the user message) from its answers file, and
everything else with HTTP 400, so capture falls back to its offline path there. `record`
keeps every prompt it saw: turn prompts go to `--prompts` ({"id", "prompt"}), compile prompts
to `--compile-prompts` ({"id", "system", "prompt"}). Compile prompts depend on the turns the
LLM accepted, so record them with the turn answers given. The tool-pattern step
(self-assessment) is not replayed. Answers are checked against the step's own output model and
checks when loaded (`AnswerFormatError` names the file, line, id and field); a compile answer
the step still rejects at run time (a tool it does not know) is counted, and its chain keeps
the offline rules. The server is the wire server of the test suite
(tests/providers/wire_server.py), so the openai SDK, retries and the structured-output
request are the real ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from dctx.capture.reading.llm import AFTERMATH, AftermathOutput  # noqa: E402
from dctx.cli.main import app  # noqa: E402
from dctx.compile.compiler_llm import COMPILE, CompileOutput, compile_validator  # noqa: E402
from dctx.errors import ConfigError  # noqa: E402
from providers.wire_server import CHAT, Reply, Request, WireServer, openai_chat, openai_error  # noqa: E402

DATA = ROOT / "benchmarks" / "realconv" / "data"


class AnswerFormatError(ConfigError):
    """A recorded answer the step would not accept; names file, line, prompt id and field."""

    def __init__(self, reason: str, *, file: str, line: int, id: str, field: str) -> None:
        self.reason, self.file, self.line, self.id, self.field = reason, file, line, id, field
        super().__init__(
            f"{file}:{line}: answer for prompt {id!r}, field {field!r}: {reason} "
            "(fix the line so it follows the step's schema, or delete it to leave the "
            "prompt unanswered)"
        )


def prompt_id(user: str) -> str:
    return hashlib.sha256(user.encode("utf-8")).hexdigest()[:16]


def _checked(
    model: type[BaseModel],
    answer: Any,
    extra: Callable[[dict[str, Any]], object] | None,
    where: dict[str, Any],
) -> dict[str, Any]:
    """`answer` if the step accepts it: the output model (unknown keys refused, since the
    schema is strict), then the step's own checks, rule by rule for a compile answer."""
    if not isinstance(answer, dict):
        raise AnswerFormatError(f"expected a JSON object, got {answer!r:.80}", **where)
    try:
        model.model_validate(answer, extra="forbid")
    except ValidationError as exc:
        first = exc.errors()[0]
        path = ".".join(str(p) for p in first["loc"]) or "answer"
        raise AnswerFormatError(first["msg"], **{**where, "field": path}) from None
    if extra is not None:
        for i, rule in enumerate(answer.get("rules") or []):
            try:
                extra({"rules": [rule]})
            except ValueError as exc:
                raise AnswerFormatError(str(exc), **{**where, "field": f"rules.{i}"}) from None
    return answer


def _lines(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerFormatError(
                str(exc), file=str(path), line=n, id="?", field="line"
            ) from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise AnswerFormatError(
                'a line must be a JSON object with a string "id"',
                file=str(path),
                line=n,
                id="?",
                field="id",
            )
        yield n, row


def load_turn_answers(paths: Sequence[Path]) -> dict[str, str]:
    """Turn answers, one `{"id", "aftermath"}` line per prompt."""
    out: dict[str, str] = {}
    for path in paths:
        for n, row in _lines(path):
            where = {"file": str(path), "line": n, "id": row["id"], "field": "aftermath"}
            answer = {k: v for k, v in row.items() if k != "id"}
            out[row["id"]] = _checked(AftermathOutput, answer, None, where)["aftermath"]
    return out


def load_compile_answers(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """Compile answers, one `{"id", "answer": {"rules": [...]}}` line per prompt, checked as
    the step checks them (tool names aside: they depend on the chain, see the module doc)."""
    validate = compile_validator(set())
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        for n, row in _lines(path):
            where = {"file": str(path), "line": n, "id": row["id"], "field": "answer"}
            if "answer" not in row:
                raise AnswerFormatError('the line has no "answer"', **where)
            answer = _checked(CompileOutput, row["answer"], validate, where)
            if row["id"] in out and out[row["id"]] != answer:
                raise AnswerFormatError("a second, different answer for this id", **where)
            out[row["id"]] = answer
    return out


@dataclass
class StepLog:
    """What one step asked and what the answers file gave it."""

    answers: dict[str, str]  # prompt id -> the JSON text to answer with
    seen: dict[str, str] = field(default_factory=dict)  # prompt id -> user message
    answered: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)  # answered, then retried by the step


class Replayer:
    """The responder: each step's prompts from its answers, HTTP 400 for everything else."""

    def __init__(self, turns: dict[str, str], compiled: dict[str, dict[str, Any]]) -> None:
        self.steps = {
            AFTERMATH.system: StepLog({k: json.dumps({"aftermath": v}) for k, v in turns.items()}),
            COMPILE.system: StepLog({k: json.dumps(v) for k, v in compiled.items()}),
        }
        self._lock = threading.Lock()

    @property
    def turn(self) -> StepLog:
        return self.steps[AFTERMATH.system]

    @property
    def compile(self) -> StepLog:
        return self.steps[COMPILE.system]

    def __call__(self, request: Request) -> Reply:
        messages = request.json["messages"]
        log = self.steps.get(messages[0]["content"])
        if log is None:
            return openai_error(400, "this step is not replayed")
        user = messages[-1]["content"]
        pid = prompt_id(user)
        with self._lock:
            if pid not in log.answers:
                # the step's retry after it rejected an answer repeats the prompt first
                retried = [a for a in log.answered if user.startswith(log.seen[a] + "\n\n")]
                log.rejected.update(retried)
                if not retried:
                    log.seen[pid] = user
                return openai_error(400, "no recorded answer")
            log.seen[pid] = user
            log.answered.add(pid)
        return openai_chat(log.answers[pid])


def run(
    replayer: Replayer, *, split: str, data: Path = DATA, show_false: int = 0
) -> tuple[int, str]:
    """`dctx bench real --llm` against the wire server answering from `replayer`."""
    with WireServer() as srv:
        srv.respond(CHAT, replayer)
        spec = f"openai-compatible:replay@{srv.openai_url}"
        argv = ["bench", "real", "--data", str(data), "--split", split]
        result = CliRunner().invoke(app, [*argv, "--show-false", str(show_false), "--llm", spec])
    return result.exit_code, result.stdout


def summary(replayer: Replayer) -> list[str]:
    t, c = replayer.turn, replayer.compile
    lines = [
        f"turn prompts: {len(t.seen)}, answered from the file: {len(t.answered)}",
        f"compile prompts: {len(c.seen)}, answered from the file: {len(c.answered)}, "
        f"rejected by the step (offline rules kept): {len(c.rejected)}",
    ]
    for name, log in (("turn", t), ("compile", c)):
        missing = len(log.seen) - len(log.answered)
        if log.answers and missing:
            lines.append(f"warning: {missing} {name} prompts had no recorded answer (offline kept)")
    return lines


def write_prompts(path: Path, log: StepLog, system: str | None = None) -> None:
    with path.open("w", encoding="utf-8") as out:
        for pid, user in log.seen.items():
            row = {"id": pid, **({"system": system} if system is not None else {}), "prompt": user}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def check(replayer: Replayer, against: Sequence[Path]) -> None:
    """`check`: the answers are well-formed (else loading failed); with `against`, every
    prompt there has an answer. Runs no benchmark, so it reads nothing of the corpus."""
    t, c = replayer.turn, replayer.compile
    print(f"well-formed: {len(t.answers)} turn answers, {len(c.answers)} compile answers")
    wanted = [row["id"] for path in against for _, row in _lines(path)]
    missing = [pid for pid in wanted if pid not in c.answers]
    unasked = sorted(set(c.answers) - set(wanted)) if against else []
    if against:
        print(
            f"{len(wanted)} compile prompts: {len(missing)} without an answer, "
            f"{len(unasked)} answers for no prompt there"
        )
    for pid in missing[:20]:
        print(f"  no answer: {pid}")
    if missing:
        raise SystemExit(1)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("mode", choices=["record", "replay", "check"])
    parser.add_argument("--split", default="dev")
    parser.add_argument("--data", type=Path, default=DATA, help="the labelled corpus folder")
    parser.add_argument("--prompts", type=Path, help="record: where the turn prompts go")
    parser.add_argument("--compile-prompts", type=Path, help="record: where compile prompts go")
    parser.add_argument("--answers", type=Path, nargs="+", default=[], help="turn answers")
    parser.add_argument(
        "--compile-answers", type=Path, nargs="+", default=[], help="compile answers (JSONL)"
    )
    parser.add_argument(
        "--against", type=Path, nargs="+", default=[], help="check: compile prompt files to cover"
    )
    parser.add_argument("--show-false", type=int, default=0)
    args = parser.parse_args(argv)
    if args.mode == "replay" and not args.answers:
        parser.error("replay needs --answers")
    if args.mode == "record" and args.prompts is None and args.compile_prompts is None:
        parser.error("record needs --prompts or --compile-prompts")
    try:
        replayer = Replayer(
            load_turn_answers(args.answers), load_compile_answers(args.compile_answers)
        )
    except ConfigError as exc:
        raise SystemExit(f"error: {exc}") from None
    if args.mode == "check":
        check(replayer, args.against)
        return
    code, out = run(replayer, split=args.split, data=args.data, show_false=args.show_false)
    print(out)
    if code != 0:
        raise SystemExit(code)
    print("\n".join(summary(replayer)))
    if args.mode == "record":
        if args.prompts is not None:
            write_prompts(args.prompts, replayer.turn)
            print(f"{len(replayer.turn.seen)} turn prompts written to {args.prompts}")
        if args.compile_prompts is not None:
            write_prompts(args.compile_prompts, replayer.compile, COMPILE.system)
            n = len(replayer.compile.seen)
            print(f"{n} compile prompts written to {args.compile_prompts}")


if __name__ == "__main__":
    main()
