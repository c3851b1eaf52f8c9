"""Where each request's access token comes from: a fixed one, the caller's own function, or an
app's client credentials exchanged at `/oauth/token` (docs/oauth.md, "Apps")."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias
from urllib.parse import quote

import httpx

from .errors import error_of

DEFAULT_SCOPE = "memory:read memory:write"
# A token is replaced this long before it expires, or at half its life when that is shorter, so
# that a request never leaves with a token that expires on its way.
REFRESH_BEFORE_SECONDS = 60.0


@dataclass(frozen=True)
class ClientCredentials:
    """An app's OAuth client credentials.

    An app gets the scopes it asks for and none when it asks for none, so `scope` defaults to the
    memory API's two; managing end users needs `admin` as well.
    """

    client_id: str
    client_secret: str = field(repr=False)
    scope: str = DEFAULT_SCOPE


Auth: TypeAlias = str | Callable[[], str] | ClientCredentials
AsyncAuth: TypeAlias = str | Callable[[], str | Awaitable[str]] | ClientCredentials


@dataclass(frozen=True)
class _Held:
    token: str
    renew_at: float  # time.monotonic()

    def fresh(self) -> bool:
        return time.monotonic() < self.renew_at


def _token_request(credentials: ClientCredentials, base_url: str) -> dict[str, Any]:
    # RFC 6749 §2.3.1: the id and the secret are form-encoded before they are joined for Basic,
    # so a `:` or a non-ASCII character in either survives.
    pair = f"{quote(credentials.client_id, safe='')}:{quote(credentials.client_secret, safe='')}"
    return {
        "url": f"{base_url}/oauth/token",
        "headers": {
            "authorization": f"Basic {base64.b64encode(pair.encode()).decode()}",
            "accept": "application/json",
        },
        "data": {"grant_type": "client_credentials", "scope": credentials.scope},
    }


def _held_of(response: httpx.Response, asked_at: float) -> _Held:
    if not response.is_success:
        raise error_of(response)
    body = response.json()
    token = body.get("access_token") if isinstance(body, dict) else None
    if not isinstance(token, str):
        raise TypeError("the token endpoint answered without an access_token")
    expires_in = body.get("expires_in")
    lifetime = float(expires_in) if isinstance(expires_in, (int, float)) else 0.0
    # From when it was asked for: the server counts the life from before its answer arrived.
    return _Held(token, asked_at + lifetime - min(REFRESH_BEFORE_SECONDS, lifetime / 2))


class _ClientCredentialsSource:
    """Tokens kept until near their expiry. Calls that need one while it is fetched wait for
    that fetch and share its outcome: twenty calls at once make one token request."""

    def __init__(self, credentials: ClientCredentials, base_url: str, http: httpx.Client) -> None:
        self._request = _token_request(credentials, base_url)
        self._http = http
        self._lock = threading.Lock()
        self._held: _Held | None = None
        self._fetches = 0
        self._failure: Exception | None = None

    def __call__(self) -> str:
        held = self._held
        if held is not None and held.fresh():
            return held.token
        fetches = self._fetches
        with self._lock:
            held = self._held
            if held is not None and held.fresh():
                return held.token
            if self._fetches != fetches and self._failure is not None:
                # A fetch failed while this call waited: asking again at once would fail alike.
                raise self._failure
            asked_at = time.monotonic()
            try:
                self._held = _held_of(self._http.post(**self._request), asked_at)
                self._failure = None
            except Exception as error:
                self._failure = error
                raise
            finally:
                self._fetches += 1
            return self._held.token


class _AsyncClientCredentialsSource:
    """The same as _ClientCredentialsSource, for one event loop's tasks."""

    def __init__(
        self, credentials: ClientCredentials, base_url: str, http: httpx.AsyncClient
    ) -> None:
        self._request = _token_request(credentials, base_url)
        self._http = http
        self._lock = asyncio.Lock()
        self._held: _Held | None = None
        self._fetches = 0
        self._failure: Exception | None = None

    async def __call__(self) -> str:
        held = self._held
        if held is not None and held.fresh():
            return held.token
        fetches = self._fetches
        async with self._lock:
            held = self._held
            if held is not None and held.fresh():
                return held.token
            if self._fetches != fetches and self._failure is not None:
                raise self._failure
            asked_at = time.monotonic()
            try:
                self._held = _held_of(await self._http.post(**self._request), asked_at)
                self._failure = None
            except Exception as error:
                self._failure = error
                raise
            finally:
                self._fetches += 1
            return self._held.token


def token_source(auth: Auth, base_url: str, http: httpx.Client) -> Callable[[], str]:
    if isinstance(auth, str):
        token = auth
        return lambda: token
    if isinstance(auth, ClientCredentials):
        return _ClientCredentialsSource(auth, base_url, http)
    if callable(auth):
        return auth
    raise TypeError("auth must be a token, a function that gives one, or ClientCredentials")


def async_token_source(
    auth: AsyncAuth, base_url: str, http: httpx.AsyncClient
) -> Callable[[], Awaitable[str]]:
    if isinstance(auth, str):
        token = auth

        async def fixed() -> str:
            return token

        return fixed
    if isinstance(auth, ClientCredentials):
        return _AsyncClientCredentialsSource(auth, base_url, http)
    if callable(auth):
        given = auth

        async def asked() -> str:
            value = given()
            return value if isinstance(value, str) else await value

        return asked
    raise TypeError("auth must be a token, a function that gives one, or ClientCredentials")
