"""The clients: one mnemo server, one organization."""

from __future__ import annotations

from types import TracebackType

import httpx

from .auth import AsyncAuth, Auth, async_token_source, token_source
from .end_users import AsyncEndUsers, EndUsers
from .memories import AsyncMemories, Memories
from .transport import AsyncTransport, Retry, Transport

# httpx's default (5 s) is short for an import of a thousand memories on a loaded server.
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=10.0)


class Mnemo:
    """A client of one mnemo server, acting in one organization.

    >>> with Mnemo("https://mnemo.example.com", ORG_ID, TOKEN) as mnemo:
    ...     mnemo.memories.add("Prefers tea over coffee", category="preference")

    `auth` is a platform credential (an access token), a function that gives one for each
    request, or an app's `ClientCredentials`. A `http_client` given is used as it is and left
    open by `close()`: its owner closes it.
    """

    memories: Memories
    """The memory API."""
    end_users: EndUsers
    """The people an app remembers, by its own ids."""

    def __init__(
        self,
        base_url: str,
        organization_id: str,
        auth: Auth,
        *,
        retry: Retry = Retry(max_retries=3, max_wait_seconds=60),
        http_client: httpx.Client | None = None,
    ) -> None:
        base = base_url.rstrip("/")
        self._owns_http = http_client is None
        self._http = httpx.Client(timeout=DEFAULT_TIMEOUT) if http_client is None else http_client
        token = token_source(auth, base, self._http)
        transport = Transport(base, organization_id, token, self._http, retry)
        self.memories = Memories(transport)
        self.end_users = EndUsers(transport, organization_id)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Mnemo:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncMnemo:
    """Mnemo for asyncio: every operation is a coroutine.

    >>> async with AsyncMnemo("https://mnemo.example.com", ORG_ID, TOKEN) as mnemo:
    ...     await mnemo.memories.add("Prefers tea over coffee", category="preference")

    `auth` may also be an async function.
    """

    memories: AsyncMemories
    end_users: AsyncEndUsers

    def __init__(
        self,
        base_url: str,
        organization_id: str,
        auth: AsyncAuth,
        *,
        retry: Retry = Retry(max_retries=3, max_wait_seconds=60),
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        base = base_url.rstrip("/")
        self._owns_http = http_client is None
        self._http = (
            httpx.AsyncClient(timeout=DEFAULT_TIMEOUT) if http_client is None else http_client
        )
        token = async_token_source(auth, base, self._http)
        transport = AsyncTransport(base, organization_id, token, self._http, retry)
        self.memories = AsyncMemories(transport)
        self.end_users = AsyncEndUsers(transport, organization_id)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncMnemo:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
