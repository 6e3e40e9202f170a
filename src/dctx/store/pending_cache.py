"""Cache writes held back until the write transaction, so the work before it writes nothing.

LLM steps of a capture run before its transaction opens (no lock held during model calls).
Their answers go into this overlay; `flush` writes them inside the transaction, so a capture
that fails writes no cache entry either, and one that succeeds writes them with its rows.
"""

from __future__ import annotations

from dctx.store.base import Store


class PendingCache:
    """The store's cache table seen through not-yet-written entries."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: dict[str, tuple[str, str, str | None]] = {}  # key -> value, ns, actor

    def cache_get(self, key: str) -> str | None:
        pending = self._pending.get(key)
        return pending[0] if pending is not None else self.store.cache_get(key)

    def cache_put(self, key: str, value: str, *, namespace: str, actor: str | None) -> None:
        self._pending[key] = (value, namespace, actor)

    def flush(self) -> None:
        """Write the held entries (call inside the store's write transaction)."""
        for key, (value, namespace, actor) in self._pending.items():
            self.store.cache_put(key, value, namespace=namespace, actor=actor)
        self._pending.clear()


__all__ = ["PendingCache"]
