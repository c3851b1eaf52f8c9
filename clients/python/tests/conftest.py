"""What the tests share: the servers clients/python/python-client.test.ts started, members with
credentials handed out one store at a time, and clients of either kind.

Most tests are written once, against the async client's surface, and run twice: `kind` is
`sync` (the sync client, awaited through tests/awaiting.py) or `async`.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import httpx
import pytest
from hypothesis import settings

from awaiting import Awaiting
from mnemo import AsyncAuth, AsyncMnemo, Mnemo, Retry
from rate_window import Limited, RateWindow

SERVERS_VARIABLE = "MNEMO_PYTHON_TEST_SERVERS"

# Hypothesis keeps no example database in the work tree, and a request to the server may take
# its time on a loaded machine.
settings.register_profile("mnemo", database=None, deadline=None, print_blob=True)
settings.load_profile("mnemo")


def _servers() -> dict[str, Any]:
    raw = os.environ.get(SERVERS_VARIABLE)
    if raw is None:
        raise pytest.UsageError(
            f"{SERVERS_VARIABLE} is not set: these tests run against servers that "
            "clients/python/python-client.test.ts starts (npx vitest run clients/python)"
        )
    servers: dict[str, Any] = json.loads(raw)
    return servers


SERVERS = _servers()
MAIN = SERVERS["main"]


@dataclass(frozen=True)
class Member:
    id: str
    token: str


_pool = [Member(member["id"], member["token"]) for member in MAIN["members"]]


def take_member() -> Member:
    """A member of the main organization nobody has used: an empty store of its own."""
    if not _pool:
        raise AssertionError("the member pool is spent: raise POOL_SIZE in python-client.test.ts")
    return _pool.pop()


_rate_window: RateWindow | None = None


def rate_window() -> RateWindow:
    assert _rate_window is not None, "no test marked rate_window was collected"
    return _rate_window


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Tests of the rate-limited server run last, so that the wait for a minute's end, spent in
    # a thread from the end of collection on, overlaps the others.
    items.sort(key=lambda item: item.get_closest_marker("rate_window") is not None)


def pytest_collection_finish(session: pytest.Session) -> None:
    global _rate_window
    # Once -k and -m have deselected what will not run.
    if any(item.get_closest_marker("rate_window") for item in session.items):
        limited = SERVERS["limited"]
        tokens = [member["token"] for member in limited["members"]]
        _rate_window = RateWindow(
            Limited(limited["url"], limited["orgId"], tokens, limited["limit"])
        )
        _rate_window.start()


@dataclass
class Seen:
    """What a client sent and got: for counting token requests and waits."""

    requests: list[httpx.Request] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    retry_afters: list[str | None] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [request.url.path for request in self.requests]

    def record_request(self, request: httpx.Request) -> None:
        self.requests.append(request)

    def record_response(self, response: httpx.Response) -> None:
        self.statuses.append(response.status_code)
        self.retry_afters.append(response.headers.get("retry-after"))


class Connect(Protocol):
    def __call__(
        self,
        auth: AsyncAuth,
        *,
        server: str = "main",
        retry: Retry = Retry(),
        seen: Seen | None = None,
        org_id: str | None = None,
    ) -> AsyncMnemo: ...


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


def open_client(
    kind: str,
    auth: AsyncAuth,
    *,
    server: str = "main",
    retry: Retry = Retry(),
    seen: Seen | None = None,
    org_id: str | None = None,
) -> tuple[AsyncMnemo, Callable[[], Awaitable[None]]]:
    """A client of `kind` (the sync one awaited through Awaiting), and what closes it."""
    url = SERVERS[server]["url"]
    org = org_id or SERVERS[server]["orgId"]
    if kind == "async":
        hooks: dict[str, list[Callable[..., Any]]] = {}
        if seen is not None:
            recorder = seen

            async def on_request(request: httpx.Request) -> None:
                recorder.record_request(request)

            async def on_response(response: httpx.Response) -> None:
                recorder.record_response(response)

            hooks = {"request": [on_request], "response": [on_response]}
        http = httpx.AsyncClient(event_hooks=hooks)
        return AsyncMnemo(url, org, auth, retry=retry, http_client=http), http.aclose
    sync_hooks: dict[str, list[Callable[..., Any]]] = {}
    if seen is not None:
        sync_hooks = {"request": [seen.record_request], "response": [seen.record_response]}
    sync_http = httpx.Client(event_hooks=sync_hooks)
    if not isinstance(auth, str) and callable(auth):
        given = auth
        auth = lambda: _sync_token(given)  # noqa: E731
    client = Mnemo(url, org, auth, retry=retry, http_client=sync_http)

    async def close() -> None:
        sync_http.close()

    return cast(AsyncMnemo, Awaiting(client)), close


@pytest.fixture
async def connect(kind: str) -> AsyncIterator[Connect]:
    """Makes clients of this test's kind, closed after it."""
    closers: list[Callable[[], Awaitable[None]]] = []

    def make(
        auth: AsyncAuth,
        *,
        server: str = "main",
        retry: Retry = Retry(),
        seen: Seen | None = None,
        org_id: str | None = None,
    ) -> AsyncMnemo:
        client, close = open_client(
            kind, auth, server=server, retry=retry, seen=seen, org_id=org_id
        )
        closers.append(close)
        return client

    yield make
    for close in closers:
        await close()


def _sync_token(given: Callable[[], Any]) -> str:
    value = given()
    assert isinstance(value, str), "the sync client takes a function that returns a token"
    return value


@pytest.fixture
def member() -> Member:
    return take_member()


@pytest.fixture
def owner() -> Member:
    return Member(MAIN["owner"]["id"], MAIN["owner"]["token"])
