"""open_store: paths and URLs to backends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dctx.errors import ConfigError
from dctx.models import Rule, RuleSource, RuleType, Scope, Trigger, TriggerKind
from dctx.store.base import CaptureBatch, Store
from dctx.store.registry import open_store, scheme_of
from dctx.store.sqlite import SQLiteStore


def _opened(target: str | Path) -> SQLiteStore:
    store = open_store(target)
    assert isinstance(store, Store) and isinstance(store, SQLiteStore)
    store.close()
    return store


def test_plain_paths_open_sqlite_files(tmp_path: Path) -> None:
    assert _opened(tmp_path / "a.db").path == str(tmp_path / "a.db")
    assert _opened(str(tmp_path / "b.db")).url == f"sqlite:///{tmp_path / 'b.db'}"
    assert (tmp_path / "a.db").exists() and (tmp_path / "b.db").exists()


def test_sqlite_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _opened("sqlite:///rel.db").path == str(tmp_path / "rel.db")  # three slashes
    assert _opened(f"sqlite:///{tmp_path}/abs.db").path == str(tmp_path / "abs.db")  # four
    for memory in (":memory:", "sqlite://", "sqlite:///:memory:"):
        assert _opened(memory).path == ":memory:"
    with pytest.raises(ConfigError, match="sqlite:///"):
        open_store("sqlite:/oops.db")


def test_memory_stores_are_separate() -> None:
    rule = Rule(
        id="r1",
        text="Use metric units.",
        type=RuleType.FORMAT,
        trigger=Trigger(kind=TriggerKind.ALWAYS),
        scope=Scope(),
        source=RuleSource.MANUAL,
        actor=None,
        group="units",
    )
    first, second = open_store(":memory:"), open_store(":memory:")
    first.write(CaptureBatch(rules=[rule]))
    assert len(first.list_rules()) == 1 and second.list_rules() == []


def test_postgresql_needs_the_extra() -> None:
    """Without psycopg (the `postgres` extra), a PostgreSQL URL names the pip command. Run in
    a fresh interpreter where importing psycopg fails, as it does when it is not installed."""
    script = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from dctx.errors import MissingDependencyError\n"
        "from dctx.store.registry import open_store, scheme_of\n"
        "for url in ('postgresql://u@localhost/dctx', 'postgres://u@h/db', "
        "'postgresql+psycopg://h/d'):\n"
        "    assert scheme_of(url) in ('postgresql', 'postgres')\n"
        "    try:\n"
        "        open_store(url)\n"
        "    except MissingDependencyError as exc:\n"
        "        print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    ).stdout.splitlines()
    assert len(out) == 3
    assert all("pip install 'dctx[postgres]'" in line for line in out)


def test_empty_target_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        open_store("")


def test_windows_style_paths_are_not_schemes() -> None:
    assert scheme_of(r"C:\data\dctx.db") == "sqlite"
    assert scheme_of("memory.db") == "sqlite"
