"""Sending one API call: its credential and organization, its refusal as a MnemoError, and a 429
waited out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import httpx

from .errors import MnemoError, error_of


@dataclass(frozen=True)
class Retry:
    """How a `429 Too Many Requests` is waited out.

    A 429 is refused before anything is done, so sending it again is safe; it is sent again
    after its `Retry-After` (1 s without one) at most `max_retries` times. A `Retry-After` longer
    than `max_wait_seconds` is raised at once, as is every other refusal.
    """

    max_retries: int = 3
    max_wait_seconds: float = 60

    def delay(self, error: MnemoError, attempt: int) -> float | None:
        """How long to wait before sending again, or None to raise `error`."""
        if error.status != 429 or attempt >= self.max_retries:
            return None
        wait = 1 if error.retry_after is None else error.retry_after
        return float(wait) if wait <= self.max_wait_seconds else None


@dataclass(frozen=True)
class Call:
    """One request of the API: `query` values that are None are left out."""

    method: str
    path: str
    query: Mapping[str, str | int | None] = field(default_factory=dict)
    body: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # The longest wait for the next bytes of the answer, when not the HTTP client's own.
    read_timeout: float | None = None


class _Base:
    def __init__(self, base_url: str, organization_id: str, retry: Retry) -> None:
        self.base_url = base_url
        self._organization_id = organization_id
        self._retry = retry

    def _request_args(
        self, call: Call, token: str, timeout: httpx.Timeout | None = None
    ) -> dict[str, Any]:
        args: dict[str, Any] = {
            "method": call.method,
            "url": f"{self.base_url}{call.path}",
            "params": {name: value for name, value in call.query.items() if value is not None},
            "headers": {
                "authorization": f"Bearer {token}",
                "x-organization-id": self._organization_id,
                "accept": "application/json",
                **call.headers,
            },
        }
        if call.body is not None:
            args["json"] = call.body
        if call.read_timeout is not None and timeout is not None:
            args["timeout"] = httpx.Timeout(
                connect=timeout.connect,
                read=call.read_timeout,
                write=timeout.write,
                pool=timeout.pool,
            )
        return args


class Transport(_Base):
    def __init__(
        self,
        base_url: str,
        organization_id: str,
        token: Callable[[], str],
        http: httpx.Client,
        retry: Retry,
    ) -> None:
        super().__init__(base_url, organization_id, retry)
        self._token = token
        self._http = http

    def send(self, call: Call, *, stream: bool = False) -> httpx.Response:
        """A successful answer (2xx), or a MnemoError for any other. With `stream`, the body is
        left unread and the caller closes the answer."""
        for attempt in count():
            request = self._http.build_request(
                **self._request_args(call, self._token(), self._http.timeout)
            )
            response = self._http.send(request, stream=stream)
            if response.is_success:
                return response
            try:
                response.read()
            finally:
                response.close()
            error = error_of(response)
            wait = self._retry.delay(error, attempt)
            if wait is None:
                raise error
            time.sleep(wait)
        raise AssertionError("unreachable")


class AsyncTransport(_Base):
    def __init__(
        self,
        base_url: str,
        organization_id: str,
        token: Callable[[], Awaitable[str]],
        http: httpx.AsyncClient,
        retry: Retry,
    ) -> None:
        super().__init__(base_url, organization_id, retry)
        self._token = token
        self._http = http

    async def send(self, call: Call, *, stream: bool = False) -> httpx.Response:
        for attempt in count():
            request = self._http.build_request(
                **self._request_args(call, await self._token(), self._http.timeout)
            )
            response = await self._http.send(request, stream=stream)
            if response.is_success:
                return response
            try:
                await response.aread()
            finally:
                await response.aclose()
            error = error_of(response)
            wait = self._retry.delay(error, attempt)
            if wait is None:
                raise error
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")
