"""OpenAIEmbedder through the real openai SDK against a real /v1/embeddings server."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import numpy as np
import pytest

from dctx.errors import ConfigError, ProviderError
from dctx.providers.base import Embedder
from dctx.providers.llm import parse_llm_spec
from dctx.providers.openai_embedder import OpenAIEmbedder, resolve_openai_embedder
from dctx.providers.retry import RetryPolicy
from dctx.providers.usage import metering
from providers.wire_server import (
    EMBEDDINGS,
    Reply,
    WireServer,
    embeddings_responder,
    openai_error,
    text_vector,
)

FAST = RetryPolicy(max_retries=2, initial_delay=0.0, jitter=0)


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer(embedding_dim=8) as server:
        yield server


def make(srv: WireServer, **kw: object) -> OpenAIEmbedder:
    cfg = parse_llm_spec(f"openai-compatible:emb@{srv.openai_url}", retry=FAST, env={})
    return OpenAIEmbedder(cfg, **kw)  # type: ignore[arg-type]


def test_embeds_in_order_normalized(srv: WireServer) -> None:
    emb = make(srv, dim=8)
    assert isinstance(emb, Embedder)
    out = emb.embed(["alpha", "beta", "gamma"])
    assert out.shape == (3, 8) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    # The server lists rows in reverse; the embedder orders them by `index`.
    expected = np.asarray(text_vector("beta", 8), dtype=np.float32)
    assert np.allclose(out[1], expected / np.linalg.norm(expected), atol=1e-6)
    body = srv.to(EMBEDDINGS)[0].json
    assert body["input"] == ["alpha", "beta", "gamma"]
    assert body["encoding_format"] == "float"
    assert body["model"] == "emb"


def test_dimension_probe_for_unknown_models(srv: WireServer) -> None:
    emb = make(srv)
    assert emb.dim == 8
    assert len(srv.to(EMBEDDINGS)) == 1  # one probe request, at construction


def test_known_models_need_no_probe(srv: WireServer) -> None:
    cfg = parse_llm_spec("openai:text-embedding-3-small", base_url=srv.openai_url, env={})
    emb = OpenAIEmbedder(cfg)
    assert emb.dim == 1536 and emb.id.startswith("openai:text-embedding-3-small")
    assert srv.to(EMBEDDINGS) == []


def test_batches_and_records_tokens(srv: WireServer) -> None:
    srv.respond(EMBEDDINGS, embeddings_responder(8, tokens_per_input=5))
    emb = make(srv, dim=8, batch_size=2)
    with metering() as meter:
        out = emb.embed([f"text {i}" for i in range(5)])
    assert out.shape == (5, 8)
    assert [len(r.json["input"]) for r in srv.to(EMBEDDINGS)] == [2, 2, 1]
    totals = meter.totals()
    assert (totals.embedding_calls, totals.embedding_tokens) == (3, 25)


def test_empty_input_and_empty_strings(srv: WireServer) -> None:
    emb = make(srv, dim=8)
    assert emb.embed([]).shape == (0, 8)
    assert srv.to(EMBEDDINGS) == []
    emb.embed(["", "x"])
    assert srv.to(EMBEDDINGS)[0].json["input"] == [" ", "x"]


def test_dimensions_parameter_and_id_round_trip(srv: WireServer) -> None:
    emb = resolve_openai_embedder(f"openai-compatible:emb@{srv.openai_url}[4]", env={})
    assert emb.dim == 4 and emb.embed(["a"]).shape == (1, 4)
    assert srv.to(EMBEDDINGS)[-1].json["dimensions"] == 4
    assert emb.id == f"openai-compatible:emb@{srv.openai_url}[4]"
    again = resolve_openai_embedder(emb.id, env={})
    assert again.id == emb.id and again.dim == 4


def test_base64_rows_are_decoded(srv: WireServer) -> None:
    vec = np.arange(1, 9, dtype="<f4")
    row = {"object": "embedding", "index": 0, "embedding": base64.b64encode(vec.tobytes()).decode()}
    srv.script(
        EMBEDDINGS,
        Reply(
            body={
                "data": [row],
                "model": "emb",
                "object": "list",
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        ),
    )
    out = make(srv, dim=8).embed(["x"])
    assert np.allclose(out[0], vec / np.linalg.norm(vec))


def test_rate_limit_is_retried_and_500_gives_up(srv: WireServer) -> None:
    emb = make(srv, dim=8)
    srv.script(EMBEDDINGS, openai_error(429))
    assert emb.embed(["a"]).shape == (1, 8)
    assert len(srv.to(EMBEDDINGS)) == 2
    srv.script(EMBEDDINGS, *[openai_error(500)] * 3)
    with pytest.raises(ProviderError, match="HTTP 500"):
        emb.embed(["a"])


def test_wrong_dimension_and_row_count_are_errors(srv: WireServer) -> None:
    emb = make(srv, dim=16)
    with pytest.raises(ProviderError, match="8-dimensional"):
        emb.embed(["a"])
    srv.script(EMBEDDINGS, Reply(body={"data": [], "model": "emb", "object": "list"}))
    with pytest.raises(ProviderError):
        make(srv, dim=8).embed(["a", "b"])
    srv.script(EMBEDDINGS, Reply(body="not json"))
    with pytest.raises(ProviderError, match="unusable response"):
        make(srv, dim=8).embed(["a"])


def test_embed_env_is_separate_from_llm_env(srv: WireServer) -> None:
    env = {"DCTX_LLM_BASE_URL": "http://127.0.0.1:1/v1", "DCTX_EMBED_BASE_URL": srv.openai_url}
    emb = resolve_openai_embedder("openai:my-embedder", dim=8, env=env)
    assert emb.config.base_url == srv.openai_url
    emb.embed(["a"])
    assert len(srv.to(EMBEDDINGS)) == 1


def test_anthropic_has_no_embeddings() -> None:
    cfg = parse_llm_spec("anthropic:claude-x", api_key="k", env={})
    with pytest.raises(ConfigError, match="no embeddings"):
        OpenAIEmbedder(cfg, dim=8)
