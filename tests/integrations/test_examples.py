"""The examples are real programs: run each one against the local wire server via base-URL
environment variables, exactly as a user would run it against a real endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from providers.wire_server import (
    CHAT,
    MESSAGES,
    WireServer,
    anthropic_message,
    anthropic_tool_use,
    openai_chat,
    openai_tool_calls,
)

PE_RULE = "flag the stock as expensive"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, env: dict[str, str], tmp_path: Path) -> str:
    full = {
        **os.environ,
        "DCTX_DB": str(tmp_path / "memory.db"),
        "DCTX_EMBEDDER": "hashing",
        **env,
    }
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_openai_example(srv: WireServer, tmp_path: Path) -> None:
    srv.script(
        CHAT,
        openai_tool_calls(("c1", "get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})),
        openai_chat("GLBX: 40.2, expensive."),
    )
    env = {"OPENAI_BASE_URL": srv.openai_url, "OPENAI_API_KEY": "sk-test", "OPENAI_MODEL": "m1"}
    out = run_example("openai_loop.py", env, tmp_path)
    assert "answer: GLBX: 40.2, expensive." in out
    assert 'tool get_price {"ticker": "GLBX", "source": "polygon"} -> corrected' in out
    first, second = (r.json for r in srv.to(CHAT))
    assert first["model"] == "m1"
    assert PE_RULE not in json.dumps(first) and PE_RULE in second["messages"][0]["content"]


def test_anthropic_example(srv: WireServer, tmp_path: Path) -> None:
    srv.script(
        MESSAGES,
        anthropic_tool_use(("toolu_1", "get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})),
        anthropic_message("GLBX: 40.2, expensive."),
    )
    env = {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "sk-ant-test"}
    out = run_example("anthropic_loop.py", env, tmp_path)
    assert "answer: GLBX: 40.2, expensive." in out and "-> corrected" in out
    first, second = (r.json for r in srv.to(MESSAGES))
    assert PE_RULE not in json.dumps(first) and PE_RULE in second["system"]
