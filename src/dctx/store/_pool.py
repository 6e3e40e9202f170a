"""A small thread-safe pool of database connections.

Why not one connection per thread: an HTTP server that starts a thread per request would open
(and leak) a connection per request. A pool hands a connection to one thread at a time, keeps a
few idle ones, and can be capped (an in-memory SQLite database is one connection, so its cap is
1 and threads take turns).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from dctx.errors import StoreError

ConnT = TypeVar("ConnT")


class ConnectionPool(Generic[ConnT]):
    def __init__(
        self,
        factory: Callable[[], ConnT],
        close: Callable[[ConnT], None],
        *,
        max_size: int | None = None,
        keep_idle: int = 4,
    ) -> None:
        self._factory = factory
        self._close = close
        self._max_size = max_size
        self._keep_idle = keep_idle if max_size is None else max_size
        self._cond = threading.Condition()
        self._idle: list[ConnT] = []
        self._open = 0  # connections open or being opened
        self._closed = False

    def acquire(self) -> ConnT:
        """A connection for the calling thread alone; blocks while the cap is reached."""
        with self._cond:
            while True:
                if self._closed:
                    raise StoreError("the store is closed")
                if self._idle:
                    return self._idle.pop()
                if self._max_size is None or self._open < self._max_size:
                    self._open += 1
                    break
                self._cond.wait()
        try:
            return self._factory()
        except BaseException:
            with self._cond:
                self._open -= 1
                self._cond.notify()
            raise

    def release(self, conn: ConnT) -> None:
        with self._cond:
            if not self._closed and len(self._idle) < self._keep_idle:
                self._idle.append(conn)
                self._cond.notify()
                return
            self._open -= 1
            self._cond.notify()
        self._close(conn)

    def discard(self, conn: ConnT) -> None:
        """Close a connection that must not be reused (broken, or left mid-transaction)."""
        with self._cond:
            self._open -= 1
            self._cond.notify()
        self._close(conn)

    def close(self) -> None:
        """Close idle connections now; busy ones close when released."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._open -= len(idle)
            self._cond.notify_all()
        for conn in idle:
            self._close(conn)

    @property
    def closed(self) -> bool:
        return self._closed


__all__ = ["ConnectionPool"]
