"""The retry policy of every remote provider call, explicit and testable.

SDK clients are built with `max_retries=0`; this module decides instead. A call is retried on
HTTP 408, 409, 429 and any 5xx, on timeouts and on connection failures, with exponential
backoff: delay(n) = min(max_delay, initial_delay * multiplier**n), times a random factor in
[1 - jitter, 1 + jitter]. A server's Retry-After (or retry-after-ms) header replaces the computed
delay when it is no longer than `max_retry_after`; a longer one is not waited for (the call
fails now rather than hanging). Other errors (400, 401, 404, ...) are never retried.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from dctx.errors import ProviderError

__all__ = ["NO_RETRY", "RetryPolicy", "provider_error", "retry_after_seconds", "with_retries"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait before retrying a failed provider call."""

    max_retries: int = 3  # retries after the first attempt
    initial_delay: float = 0.5  # seconds before the first retry
    multiplier: float = 2.0
    max_delay: float = 8.0
    jitter: float = 0.1  # relative spread of each delay; 0 makes delays exact
    max_retry_after: float = 60.0  # longest server-requested wait that is honored
    retry_statuses: frozenset[int] = frozenset({408, 409, 429})  # plus every 5xx

    def __post_init__(self) -> None:
        if self.max_retries < 0 or self.initial_delay < 0 or self.max_delay < 0:
            raise ValueError("retry counts and delays must not be negative")
        if not 0 <= self.jitter < 1:
            raise ValueError("jitter must be in [0, 1)")

    def retries_status(self, status: int) -> bool:
        return status in self.retry_statuses or 500 <= status <= 599

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (0-based)."""
        if retry_after is not None and 0 <= retry_after <= self.max_retry_after:
            return retry_after
        base = min(self.max_delay, self.initial_delay * self.multiplier**retry)
        if self.jitter:
            base *= random.uniform(1 - self.jitter, 1 + self.jitter)
        return max(0.0, base)


NO_RETRY = RetryPolicy(max_retries=0)


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Parse `retry-after-ms` / `retry-after` (seconds) headers; None when absent or odd."""
    if not headers:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return float(raw) / divisor
        except ValueError:
            continue
    return None


def classify(
    exc: BaseException, policy: RetryPolicy, transient: tuple[type[BaseException], ...]
) -> tuple[bool, float | None]:
    """(retryable, server-requested delay) for an SDK exception.

    `transient` holds the SDK's timeout / connection error classes. Status errors are
    recognized by their `status_code` and `response.headers`, which both SDKs provide.
    """
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if not policy.retries_status(status):
            return False, None
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        return True, retry_after_seconds(headers)
    return isinstance(exc, transient), None


def with_retries(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    transient: tuple[type[BaseException], ...],
    what: str,
    sleep: Callable[[float], Any] = time.sleep,
) -> T:
    """Call `fn`, retrying per `policy`. The last exception is re-raised unchanged (callers
    map it onto the dctx error tree); it is retried only when `classify` says so."""
    retry = 0
    while True:
        try:
            return fn()
        except Exception as exc:
            retryable, retry_after = classify(exc, policy, transient)
            too_long = retry_after is not None and retry_after > policy.max_retry_after
            if not retryable or retry >= policy.max_retries or too_long:
                exc.dctx_retries = retry  # type: ignore[attr-defined]  # for provider_error
                raise
            wait = policy.delay(retry, retry_after)
            logger.warning(
                "%s failed (%s); retry %d/%d in %.2fs",
                what,
                _describe(exc),
                retry + 1,
                policy.max_retries,
                wait,
            )
            sleep(wait)
            retry += 1


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    return f"{name} HTTP {status}" if isinstance(status, int) else name


def provider_error(
    exc: BaseException,
    *,
    who: str,
    timeout: float,
    base_url: str | None,
    key_env: str,
    timeouts: tuple[type[BaseException], ...],
    transient: tuple[type[BaseException], ...],
) -> ProviderError:
    """Map an SDK exception (after retries) onto ProviderError with a message naming the fix."""
    retries = getattr(exc, "dctx_retries", 0)
    tried = f" (after {retries} retries)" if retries else ""
    status = getattr(exc, "status_code", None)
    where = base_url or "the official endpoint"
    if isinstance(status, int):
        detail = _short(getattr(exc, "message", None) or str(exc))
        if status in (401, 403):
            hint = f"check {key_env} or the api_key you passed" if key_env else "check the key"
            return ProviderError(f"{who}: the API key was refused (HTTP {status}); {hint}")
        return ProviderError(f"{who}: HTTP {status} from {where}{tried}: {detail}")
    if isinstance(exc, timeouts):
        return ProviderError(f"{who}: no answer from {where} within {timeout:g}s{tried}")
    if isinstance(exc, transient):
        return ProviderError(f"{who}: could not reach {where}{tried}: {_short(str(exc))}")
    return ProviderError(f"{who}: unusable response from {where}: {_short(str(exc))}")


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
