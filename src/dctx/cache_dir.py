"""Where dctx keeps derived files it can rebuild (the int8 MiniLM, pint's parsed unit
definitions): one folder, so a user can find, move or delete every one of them."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir(env: dict[str, str] | None = None) -> Path:
    """`DCTX_CACHE_DIR`, else `$XDG_CACHE_HOME/dctx`, else `~/.cache/dctx`."""
    env = dict(os.environ) if env is None else env
    if env.get("DCTX_CACHE_DIR"):
        return Path(env["DCTX_CACHE_DIR"]).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "dctx"


__all__ = ["default_cache_dir"]
