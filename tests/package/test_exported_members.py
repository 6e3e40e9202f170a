"""The public API is exactly `dctx.__all__`: every name resolves, nothing public is left out."""

from __future__ import annotations

import subprocess
import sys

import dctx
import dctx.errors
from dctx.errors import DctxError


def test_all_names_resolve_and_are_sorted() -> None:
    for name in dctx.__all__:
        assert getattr(dctx, name) is not None, name
    # ruff's RUF022 order: constants, then classes, then dunders
    order = sorted(dctx.__all__, key=lambda n: (n.startswith("_"), not n.isupper(), n))
    assert dctx.__all__ == order


def test_every_error_class_is_exported_and_in_the_one_tree() -> None:
    errors = {
        name
        for name, value in vars(dctx.errors).items()
        if isinstance(value, type) and issubclass(value, DctxError)
    }
    assert errors == set(dctx.errors.__all__)
    assert errors <= set(dctx.__all__)
    for name in ("RuntimeFailure", "AuthError", "AgentLoopError", "MaxTurnsError"):
        assert getattr(dctx, name) is getattr(dctx.errors, name)


def test_errors_raised_by_the_layers_are_the_tree_s_classes() -> None:
    from dctx.integrations import AgentLoopError, MaxTurnsError
    from dctx.server.errors import AuthError

    assert AgentLoopError is dctx.AgentLoopError and MaxTurnsError is dctx.MaxTurnsError
    assert AuthError is dctx.AuthError


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        dctx.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("dctx.NoSuchThing resolved")


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {m.split(".")[0] for m in out.split()}


def test_importing_errors_or_the_version_loads_nothing_heavy() -> None:
    for code in (
        "import dctx.errors",
        "import dctx; dctx.__version__",
        "from dctx import DctxError",
    ):
        loaded = _loaded_after(code)
        assert not loaded & {"numpy", "onnxruntime", "tokenizers", "pydantic", "bm25s"}, code


def test_version_is_the_installed_package_version() -> None:
    from importlib.metadata import version

    assert dctx.__version__ == version("dctx")
