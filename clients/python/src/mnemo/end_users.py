"""The people an app remembers, by the app's own ids (`/api/v1/orgs/{orgId}/end-users`).

For the organization's owners and admins, and its apps with the admin role (whose credentials
then ask for the `admin` scope). An end user's `id` is what the memory API takes as `user`.
"""

from __future__ import annotations

from urllib.parse import quote

from .models import (
    EndUserDetails,
    EndUserPage,
    EndUserRegistration,
    parse_end_user,
    parse_end_user_details,
    parse_end_user_page,
)
from .transport import AsyncTransport, Call, Transport


class _calls:
    def __init__(self, organization_id: str) -> None:
        self.base = f"/api/v1/orgs/{quote(organization_id, safe='')}/end-users"

    def one(self, external_id: str) -> str:
        # An external id may hold any character but controls: a `/` must travel as %2F.
        return f"{self.base}/{quote(external_id, safe='')}"

    def register(self, external_id: str, name: str | None) -> Call:
        return Call("PUT", self.one(external_id), body={} if name is None else {"name": name})

    def get(self, external_id: str) -> Call:
        return Call("GET", self.one(external_id))

    def list(self, q: str | None, limit: int | None, cursor: str | None) -> Call:
        return Call("GET", self.base, {"q": q, "limit": limit, "cursor": cursor})

    def erase(self, external_id: str) -> Call:
        return Call("DELETE", self.one(external_id))


class EndUsers:
    """End users, for the sync client (`Mnemo.end_users`)."""

    def __init__(self, transport: Transport, organization_id: str) -> None:
        self._transport = transport
        self._calls = _calls(organization_id)

    def register(self, external_id: str, *, name: str | None = None) -> EndUserRegistration:
        """Registers an end user under the app's id, or finds the one registered: any number of
        calls with one id make one end user. A `name` given replaces the one held."""
        response = self._transport.send(self._calls.register(external_id, name))
        return EndUserRegistration(
            created=response.status_code == 201,
            end_user=parse_end_user(response.json()["endUser"]),
        )

    def get(self, external_id: str) -> EndUserDetails:
        """One end user, with how many memories are held of them; MnemoError 404 when unknown."""
        response = self._transport.send(self._calls.get(external_id))
        return parse_end_user_details(response.json()["endUser"])

    def list(
        self, *, q: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> EndUserPage:
        """A page of end users, newest first; `q` keeps those whose id or name starts with it."""
        response = self._transport.send(self._calls.list(q, limit, cursor))
        return parse_end_user_page(response.json())

    def erase(self, external_id: str) -> None:
        """Erases the person: every memory of theirs, their contributions to pools, grants and
        keys, in one transaction. Succeeds also when already erased or never known."""
        self._transport.send(self._calls.erase(external_id))


class AsyncEndUsers:
    """End users, for the async client (`AsyncMnemo.end_users`)."""

    def __init__(self, transport: AsyncTransport, organization_id: str) -> None:
        self._transport = transport
        self._calls = _calls(organization_id)

    async def register(self, external_id: str, *, name: str | None = None) -> EndUserRegistration:
        """Registers an end user under the app's id, or finds the one registered."""
        response = await self._transport.send(self._calls.register(external_id, name))
        return EndUserRegistration(
            created=response.status_code == 201,
            end_user=parse_end_user(response.json()["endUser"]),
        )

    async def get(self, external_id: str) -> EndUserDetails:
        """One end user, with how many memories are held of them; MnemoError 404 when unknown."""
        response = await self._transport.send(self._calls.get(external_id))
        return parse_end_user_details(response.json()["endUser"])

    async def list(
        self, *, q: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> EndUserPage:
        """A page of end users, newest first."""
        response = await self._transport.send(self._calls.list(q, limit, cursor))
        return parse_end_user_page(response.json())

    async def erase(self, external_id: str) -> None:
        """Erases the person and everything held of them; succeeds also when already erased."""
        await self._transport.send(self._calls.erase(external_id))
