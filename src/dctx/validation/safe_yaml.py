"""YAML for untrusted trace files: the safe loader with aliases refused.

An alias (`*name`) repeats an anchored node; nested aliases grow exponentially (a 639-byte
"billion laughs" file expands to hundreds of MB). Trace files have no need for them, so the
scanner stops at the first one, before anything is expanded.
"""

from __future__ import annotations

from typing import Any

import yaml


class _NoAliasLoader(yaml.SafeLoader):
    def fetch_alias(self) -> None:
        raise yaml.scanner.ScannerError(
            None,
            None,
            "YAML aliases (*name) are not accepted; write the value out",
            self.get_mark(),
        )


def load_yaml(text: str) -> Any:
    """Parse YAML text like `yaml.safe_load`, but refuse aliases (raises yaml.YAMLError)."""
    return yaml.load(text, Loader=_NoAliasLoader)


__all__ = ["load_yaml"]
