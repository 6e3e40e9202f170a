"""Role policies (capture/roles.py) kept in the `meta` table, shared by both backends.

One row per namespace or (namespace, skill): the key holds digests of the names, so it
outlives nothing it should not and has no wildcard in it; the value holds the names and the
policy as JSON. The store keeps the JSON as given: the capture layer validates it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

PREFIX = "role_policy:"


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]


def namespace_prefix(namespace: str) -> str:
    """The key prefix of every policy of a namespace (for LIKE ... and drop_namespace)."""
    return f"{PREFIX}{_digest(namespace)}:"


def key(namespace: str, skill: str | None) -> str:
    """The meta key of one policy; skill None is the namespace-wide one."""
    return namespace_prefix(namespace) + ("*" if skill is None else _digest(skill))


def value(namespace: str, skill: str | None, policy: dict[str, Any]) -> str:
    return json.dumps(
        {"namespace": namespace, "skill": skill, "policy": policy},
        ensure_ascii=False,
        sort_keys=True,
    )


def parse(rows: list[Any]) -> dict[str | None, dict[str, Any]]:
    """skill (None: namespace-wide) -> policy JSON, from the meta values of a namespace."""
    out: dict[str | None, dict[str, Any]] = {}
    for (text,) in rows:
        doc = json.loads(text)
        out[doc["skill"]] = doc["policy"]
    return out
