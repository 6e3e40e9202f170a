"""After `forget_actor`, no in-process cache keyed by text still holds the forgotten actor's
words: the stem cache, the hashing embedder's feature cache, MiniLM's query cache, the parsed
clauses, and every other cache of the package's functions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dctx.capture.reading.default import default_reader
from dctx.grammar import opens_command, states_generally
from dctx.memory import Memory
from dctx.providers import hashing
from dctx.providers.base import Embedder
from dctx.store.sqlite import SQLiteStore
from dctx.text import stem
from dctx.units import seconds_in

SAID = [
    {"role": "user", "content": "Summarize the zyzzogeton orchard quarter."},
    {"role": "assistant", "content": "Revenue grew 12% to $40M."},
    {"role": "user", "content": "Always show revenue in EUR, not dollars."},
    {"role": "assistant", "content": "Revenue grew 12% to EUR 37M."},
]


def test_word_caches_are_emptied(tmp_path: Path) -> None:
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder="hashing", embed_nodes=True)
    mem.capture(SAID, actor="xenia", skill="fa", conversation_id="x1")
    assert stem.cache_info().currsize and hashing._bucket.cache_info().currsize
    assert opens_command.cache_info().currsize  # "show revenue in EUR" was parsed
    states_generally("Quarterly reports go to the orchard board.")
    assert states_generally.cache_info().currsize
    mem.forget_actor("xenia")
    assert stem.cache_info().currsize == 0
    assert hashing._bucket.cache_info().currsize == 0
    assert opens_command.cache_info().currsize == 0
    assert states_generally.cache_info().currsize == 0
    mem.close()


def _function_caches() -> dict[str, object]:
    """Every lru-cached function the package defines in its loaded modules that can hold many
    keys; not those holding one object (a loaded model), unit names of pint's registry, or a
    library's own (`urllib.parse.urlsplit`, imported by the server)."""
    found: dict[str, object] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("dctx.") or name.startswith("dctx.bench"):
            continue
        for attr, value in vars(module).items():
            info = getattr(value, "cache_info", None)
            ours = str(getattr(value, "__module__", "")).startswith("dctx.")
            if ours and callable(info) and info().maxsize != 1 and value is not seconds_in:
                found[f"{name}.{attr}"] = value
    return found


def test_no_function_cache_keeps_forgotten_words(tmp_path: Path) -> None:
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder="hashing", embed_nodes=True)
    mem.capture(SAID, actor="xenia", skill="fa", conversation_id="x1")
    caches = _function_caches()
    assert len(caches) > 10  # the package's modules are loaded and their caches found
    mem.forget_actor("xenia")
    assert [n for n, f in caches.items() if f.cache_info().currsize] == []  # type: ignore[attr-defined]
    mem.close()


def test_the_query_cache_of_the_embedder_is_emptied(tmp_path: Path, embedder: Embedder) -> None:
    if not hasattr(embedder, "cache_misses"):
        pytest.skip("the MiniLM model is not available here")
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder=embedder)
    mem.capture(SAID, actor="xenia", skill="fa", conversation_id="x1")
    query = "Revenue of the zyzzogeton orchard?"
    mem.start(actor="xenia", skill="fa", query=query)
    misses = embedder.cache_misses  # type: ignore[attr-defined]
    mem.start(actor="xenia", skill="fa", query=query)
    assert embedder.cache_misses == misses  # type: ignore[attr-defined]  # cached
    mem.forget_actor("xenia")
    mem.start(actor="yusuf", skill="fa", query=query)
    assert embedder.cache_misses > misses  # type: ignore[attr-defined]  # embedded anew
    mem.close()


def test_the_turn_readers_cache_is_emptied(tmp_path: Path, embedder: Embedder) -> None:
    """The learned reader embeds every user turn and its embedder caches them."""
    reader = default_reader()
    cached = getattr(reader, "embedder", None)
    if not hasattr(cached, "cache_misses"):
        pytest.skip("the learned turn reader (MiniLM) is not available here")
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder=embedder)
    mem.capture(SAID, actor="xenia", skill="fa", conversation_id="x1")
    turn = str(SAID[2]["content"])
    misses = cached.cache_misses  # type: ignore[union-attr]
    cached.embed([turn])  # type: ignore[union-attr]
    assert cached.cache_misses == misses  # type: ignore[union-attr]  # the reader's, cached
    mem.forget_actor("xenia")
    cached.embed([turn])  # type: ignore[union-attr]
    assert cached.cache_misses == misses + 1  # type: ignore[union-attr]
    mem.close()
