"""An app's client credentials, on a server whose tokens live a few seconds: one token request
for many calls at once (threads for the sync client, tasks for the async one), a new one as the
token nears its expiry, and a refused secret as a MnemoError."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs

import httpx

from conftest import SERVERS, Seen
from mnemo import AsyncMnemo, ClientCredentials, Mnemo, MnemoError

TOKENS = SERVERS["tokens"]
APP = ClientCredentials(TOKENS["app"]["id"], TOKENS["app"]["secret"])
# The client replaces a token after half its life when that is shorter than a minute.
RENEWAL_SECONDS = TOKENS["ttlSeconds"] / 2
CALLS = 20


def sync_client(seen: Seen, credentials: ClientCredentials = APP, slow: float = 0) -> Mnemo:
    def slow_token_request(request: httpx.Request) -> None:
        # Holds the fetch under way while the other threads come to need a token.
        if request.url.path == "/oauth/token":
            time.sleep(slow)

    http = httpx.Client(event_hooks={"request": [seen.record_request, slow_token_request]})
    return Mnemo(TOKENS["url"], TOKENS["orgId"], credentials, http_client=http)


def async_client(seen: Seen, credentials: ClientCredentials = APP) -> AsyncMnemo:
    async def on_request(request: httpx.Request) -> None:
        seen.record_request(request)

    http = httpx.AsyncClient(event_hooks={"request": [on_request]})
    return AsyncMnemo(TOKENS["url"], TOKENS["orgId"], credentials, http_client=http)


def token_requests(seen: Seen) -> list[httpx.Request]:
    return [request for request in seen.requests if request.url.path == "/oauth/token"]


def assert_the_token_request(request: httpx.Request) -> None:
    assert request.method == "POST"
    basic = base64.b64encode(f"{APP.client_id}:{APP.client_secret}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {basic}"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert parse_qs(request.content.decode()) == {
        "grant_type": ["client_credentials"],
        "scope": ["memory:read memory:write"],
    }


def memories_of_the_app() -> list[str]:
    """The app identity's memories, as the organization's owner sees them with `user`."""
    with Mnemo(TOKENS["url"], TOKENS["orgId"], TOKENS["owner"]["token"]) as owner:
        return [m.content for m in owner.memories.list(user=TOKENS["app"]["userId"]).memories]


def test_sync_twenty_calls_from_threads_fetch_one_token() -> None:
    seen = Seen()
    with sync_client(seen) as mnemo, ThreadPoolExecutor(CALLS) as threads:
        contents = [f"Sync ticket {i} is open" for i in range(CALLS)]
        added = list(threads.map(lambda content: mnemo.memories.add(content), contents))
    assert all(result.created for result in added)
    [request] = token_requests(seen)
    assert_the_token_request(request)
    assert set(contents) <= set(memories_of_the_app())


async def test_async_twenty_calls_at_once_fetch_one_token() -> None:
    seen = Seen()
    async with async_client(seen) as mnemo:
        contents = [f"Async ticket {i} is open" for i in range(CALLS)]
        added = await asyncio.gather(*(mnemo.memories.add(content) for content in contents))
    assert all(result.created for result in added)
    [request] = token_requests(seen)
    assert_the_token_request(request)
    assert set(contents) <= set(memories_of_the_app())


def test_sync_the_token_is_kept_while_fresh_and_replaced_near_its_expiry() -> None:
    seen = Seen()
    with sync_client(seen) as mnemo, ThreadPoolExecutor(3) as threads:
        mnemo.memories.list()
        mnemo.memories.list()
        assert len(token_requests(seen)) == 1
        time.sleep(RENEWAL_SECONDS + 0.2)
        list(threads.map(lambda _: mnemo.memories.list(), range(3)))
        assert len(token_requests(seen)) == 2
        mnemo.memories.list()
        assert len(token_requests(seen)) == 2


async def test_async_the_token_is_kept_while_fresh_and_replaced_near_its_expiry() -> None:
    seen = Seen()
    async with async_client(seen) as mnemo:
        await mnemo.memories.list()
        await mnemo.memories.list()
        assert len(token_requests(seen)) == 1
        await asyncio.sleep(RENEWAL_SECONDS + 0.2)
        await asyncio.gather(*(mnemo.memories.list() for _ in range(3)))
        assert len(token_requests(seen)) == 2
        await mnemo.memories.list()
        assert len(token_requests(seen)) == 2


def assert_refused(error: MnemoError) -> None:
    assert error.status == 401
    assert error.body["error"] == "invalid_client"
    assert error.message == error.body["error_description"] != ""


def test_sync_a_refused_secret_is_a_mnemo_error_shared_by_the_calls_waiting() -> None:
    seen = Seen()
    wrong = ClientCredentials(APP.client_id, "mnemo_cs_wrong")
    with sync_client(seen, wrong, slow=0.5) as mnemo, ThreadPoolExecutor(5) as threads:
        start = threading.Barrier(5)

        def call(_: int) -> MnemoError:
            start.wait()
            return _error_of(mnemo.memories.list)

        for error in threads.map(call, range(5)):
            assert_refused(error)
        assert len(token_requests(seen)) == 1
        # A later call asks again.
        assert_refused(_error_of(mnemo.memories.list))
        assert len(token_requests(seen)) == 2


async def test_async_a_refused_secret_is_a_mnemo_error_shared_by_the_calls_waiting() -> None:
    seen = Seen()
    wrong = ClientCredentials(APP.client_id, "mnemo_cs_wrong")
    async with async_client(seen, wrong) as mnemo:
        outcomes = await asyncio.gather(
            *(mnemo.memories.list() for _ in range(5)), return_exceptions=True
        )
        for error in outcomes:
            assert isinstance(error, MnemoError)
            assert_refused(error)
        assert len(token_requests(seen)) == 1
        try:
            await mnemo.memories.list()
            raise AssertionError("a refused secret got a token")
        except MnemoError as error:
            assert_refused(error)
        assert len(token_requests(seen)) == 2


def _error_of(call: object) -> MnemoError:
    assert callable(call)
    try:
        call()
    except MnemoError as error:
        return error
    raise AssertionError("the call succeeded")
