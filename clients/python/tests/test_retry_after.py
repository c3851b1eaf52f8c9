"""Retry-After as an HTTP-date, and answers that are not the API's JSON: what the server never
sends, so a transport of httpx's stands in for it."""

from __future__ import annotations

import time
from collections.abc import Callable
from email.utils import formatdate

import httpx

from mnemo import AsyncMnemo, Mnemo, MnemoError, Retry
from mnemo.errors import retry_after_of

EMPTY_LIST = {"memories": [], "cursor": "c1"}


def answers(*responses: httpx.Response) -> Callable[[httpx.Request], httpx.Response]:
    """Answers each request with the next response given."""
    queue = list(responses)
    return lambda request: queue.pop(0)


def slow_down(retry_after: str) -> httpx.Response:
    return httpx.Response(429, json={"error": "slow down"}, headers={"retry-after": retry_after})


def in_seconds(seconds: float) -> str:
    return formatdate(time.time() + seconds, usegmt=True)


def test_retry_after_in_seconds_or_as_an_http_date() -> None:
    now = 1_800_000_000.0
    assert retry_after_of("7") == 7
    assert retry_after_of(" 0 ") == 0
    assert retry_after_of(formatdate(now + 3, usegmt=True), now) == 3
    assert retry_after_of(formatdate(now + 2.5, usegmt=True), now + 0.2) == 2
    assert retry_after_of(formatdate(now - 30, usegmt=True), now) == 0
    assert retry_after_of("soon") is None
    assert retry_after_of("-5") is None
    assert retry_after_of(None) is None


def test_sync_a_429_with_an_http_date_is_waited_out() -> None:
    transport = httpx.MockTransport(
        answers(
            slow_down(in_seconds(2)),
            httpx.Response(200, json=EMPTY_LIST),
        )
    )
    with httpx.Client(transport=transport) as http:
        mnemo = Mnemo("http://mnemo.test", "org", "token", http_client=http)
        started = time.monotonic()
        assert mnemo.memories.list().cursor == "c1"
        assert time.monotonic() - started >= 1


async def test_async_a_429_with_an_http_date_is_waited_out() -> None:
    transport = httpx.MockTransport(
        answers(
            slow_down(in_seconds(2)),
            httpx.Response(200, json=EMPTY_LIST),
        )
    )
    async with httpx.AsyncClient(transport=transport) as http:
        mnemo = AsyncMnemo("http://mnemo.test", "org", "token", http_client=http)
        started = time.monotonic()
        assert (await mnemo.memories.list()).cursor == "c1"
        assert time.monotonic() - started >= 1


def test_a_wait_longer_than_allowed_and_a_body_that_is_no_json_are_raised() -> None:
    transport = httpx.MockTransport(
        answers(
            slow_down(in_seconds(90)),
            httpx.Response(502, text="<html>Bad gateway</html>"),
        )
    )
    with httpx.Client(transport=transport) as http:
        mnemo = Mnemo("http://mnemo.test", "org", "token", http_client=http, retry=Retry())
        try:
            mnemo.memories.list()
            raise AssertionError("a wait of 90 s was waited")
        except MnemoError as error:
            assert (error.status, error.message) == (429, "slow down")
            assert error.body == {"error": "slow down"}
            assert error.retry_after is not None and 88 <= error.retry_after <= 90
        try:
            mnemo.memories.list()
            raise AssertionError("a 502 succeeded")
        except MnemoError as bad:
            assert (bad.status, bad.message) == (502, "HTTP 502")
            assert (bad.body, bad.retry_after) == ("<html>Bad gateway</html>", None)
