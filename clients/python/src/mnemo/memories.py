"""The memory API (`/api/v1/memory`), for the sync and the async client.

Acting for another member takes `user`, a project's pool takes `project`: the API takes them in
the query of reads, changes and deletes and in the body of adds and imports, and each request
below puts them where they go. Each operation is a request built once (`_calls`) and an answer
read once (`models`), so the two clients differ only in how they wait.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import Enum
from typing import Any, Final, Literal, TypeAlias
from urllib.parse import quote

from .events import AsyncEventStream, EventStream
from .export import CURSOR_HEADER, AsyncMemoryExport, MemoryExport
from .mirror import AsyncMirror, AsyncMirrorStorage, Mirror, MirrorStorage
from .models import (
    AddResult,
    Category,
    ImportItem,
    ImportResult,
    ListResult,
    Memory,
    SearchResult,
    format_time,
    import_item_json,
    parse_add,
    parse_import,
    parse_list,
    parse_memory_answer,
    parse_search,
)
from .transport import AsyncTransport, Call, Transport


class _Unset(Enum):
    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset.UNSET
"""`update`'s "not given", since its `category=None` means "remove the category"."""

NotGiven: TypeAlias = Literal[_Unset.UNSET]

BASE = "/api/v1/memory"

# The server pings an idle change stream every 20 s: three pings missed is a dead connection.
EVENTS_READ_TIMEOUT_SECONDS = 60.0


class _calls:
    """The request of each operation."""

    @staticmethod
    def by_id(id: str) -> str:
        return f"{BASE}/{quote(id, safe='')}"

    @staticmethod
    def list(since: str | None, user: str | None, project: str | None) -> Call:
        return Call("GET", BASE, {"since": since, "user": user, "project": project})

    @staticmethod
    def get(id: str, user: str | None) -> Call:
        return Call("GET", _calls.by_id(id), {"user": user})

    @staticmethod
    def add(
        content: str, category: Category | None, user: str | None, project: str | None
    ) -> Call:
        body: dict[str, Any] = {"content": content}
        optional = {"category": category, "user": user, "project": project}
        body.update({name: value for name, value in optional.items() if value is not None})
        return Call("POST", BASE, body=body)

    @staticmethod
    def update(
        id: str,
        content: str | NotGiven,
        category: Category | None | NotGiven,
        base_updated_at: datetime | str | None,
        user: str | None,
    ) -> Call:
        body: dict[str, Any] = {}
        if not isinstance(content, _Unset):
            body["content"] = content
        if not isinstance(category, _Unset):
            body["category"] = category  # None travels as null: the category is removed.
        if base_updated_at is not None:
            body["baseUpdatedAt"] = format_time(base_updated_at)
        return Call("PATCH", _calls.by_id(id), {"user": user}, body)

    @staticmethod
    def delete(id: str, user: str | None) -> Call:
        return Call("DELETE", _calls.by_id(id), {"user": user})

    @staticmethod
    def search(
        q: str,
        limit: int | None,
        category: Category | None,
        user: str | None,
        project: str | None,
    ) -> Call:
        query = {"q": q, "limit": limit, "category": category, "user": user, "project": project}
        return Call("GET", f"{BASE}/search", query)

    @staticmethod
    def import_(
        memories: Iterable[ImportItem | str], user: str | None, project: str | None
    ) -> Call:
        body: dict[str, Any] = {"memories": [import_item_json(item) for item in memories]}
        optional = {"user": user, "project": project}
        body.update({name: value for name, value in optional.items() if value is not None})
        return Call("POST", f"{BASE}/import", body=body)

    @staticmethod
    def export(user: str | None, project: str | None) -> Call:
        return Call("GET", f"{BASE}/export", {"user": user, "project": project})

    @staticmethod
    def events(
        since: str | None, user: str | None, project: str | None, last_event_id: str | None
    ) -> Call:
        headers = {"accept": "text/event-stream"}
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        query = {"since": since, "user": user, "project": project}
        timeout = EVENTS_READ_TIMEOUT_SECONDS
        return Call("GET", f"{BASE}/events", query, headers=headers, read_timeout=timeout)

    @staticmethod
    def erase(user: str | None, project: str | None, category: Category | None) -> Call:
        return Call("DELETE", BASE, {"user": user, "project": project, "category": category})


class Memories:
    """The memory API, for the sync client (`Mnemo.memories`)."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(
        self, *, since: str | None = None, user: str | None = None, project: str | None = None
    ) -> ListResult:
        """Every active memory of the store, or with `since` (an earlier answer's cursor) what
        changed after it, with the ids deleted since in `deleted`. Keep `cursor` for the next."""
        return parse_list(self._transport.send(_calls.list(since, user, project)).json())

    def get(self, id: str, *, user: str | None = None) -> Memory:
        """One memory; MnemoError 404 for one that does not exist or may not be seen."""
        return parse_memory_answer(self._transport.send(_calls.get(id, user)).json())

    def add(
        self,
        content: str,
        *,
        category: Category | None = None,
        user: str | None = None,
        project: str | None = None,
    ) -> AddResult:
        """Adds a memory. One equal to an active memory of the store (once normalized) is folded
        into it: `created` False, `memory` a FoldedMemory (its id and content), nothing stored."""
        response = self._transport.send(_calls.add(content, category, user, project))
        return parse_add(response.status_code, response.json())

    def update(
        self,
        id: str,
        *,
        content: str | NotGiven = UNSET,
        category: Category | None | NotGiven = UNSET,
        base_updated_at: datetime | str | None = None,
        user: str | None = None,
    ) -> Memory:
        """Changes the content, the category (None removes it) or both; the memory as it is now.

        With `base_updated_at` (the `updated_at` last read) on a server with optimistic
        concurrency, a change made since is a MnemoError 409 whose `memory` is the current one.
        """
        call = _calls.update(id, content, category, base_updated_at, user)
        return parse_memory_answer(self._transport.send(call).json())

    def delete(self, id: str, *, user: str | None = None) -> None:
        """Deletes a memory; deleting it again succeeds as well."""
        self._transport.send(_calls.delete(id, user))

    def search(
        self,
        q: str,
        *,
        limit: int | None = None,
        category: Category | None = None,
        user: str | None = None,
        project: str | None = None,
    ) -> SearchResult:
        """The active memories that match `q`, best first, each with its score."""
        call = _calls.search(q, limit, category, user, project)
        return parse_search(self._transport.send(call).json())

    def import_(
        self,
        memories: Iterable[ImportItem | str],
        *,
        user: str | None = None,
        project: str | None = None,
    ) -> ImportResult:
        """Adds up to 1,000 memories in one write, each as an add; an invalid item is answered
        `invalid` with its error and the others are still added."""
        call = _calls.import_(memories, user, project)
        return parse_import(self._transport.send(call).json())

    def export(self, *, user: str | None = None, project: str | None = None) -> MemoryExport:
        """Every memory of the store, streamed from one snapshot as it is iterated.

        >>> with mnemo.memories.export() as exported:
        ...     for memory in exported:
        ...         save(memory)
        >>> changes = mnemo.memories.list(since=exported.cursor)
        """
        return MemoryExport(self._transport.send(_calls.export(user, project), stream=True))

    def events(
        self,
        *,
        since: str | None = None,
        user: str | None = None,
        project: str | None = None,
        last_event_id: str | None = None,
    ) -> EventStream:
        """The store's change stream: `ChangeEvent`, `DeleteEvent`, `SyncEvent` after each batch,
        and `ErrorEvent` before it ends on a refusal; each with its cursor. Without `since` (or
        `last_event_id`, an event's cursor, which wins) every memory of the store comes first.
        A refusal (400 `invalid cursor`, 410, 403…) is a MnemoError raised here.

        >>> with mnemo.memories.events(since=cursor) as events:
        ...     for event in events:
        ...         handle(event)
        """
        call = _calls.events(since, user, project, last_event_id)
        return EventStream(self._transport.send(call, stream=True))

    def erase(
        self,
        *,
        user: str | None = None,
        project: str | None = None,
        category: Category | None = None,
    ) -> int:
        """Deletes every memory of the store, or of one category; how many were deleted."""
        call = _calls.erase(user, project, category)
        return int(self._transport.send(call).json()["deleted"])

    def mirror(
        self,
        *,
        user: str | None = None,
        project: str | None = None,
        storage: MirrorStorage | None = None,
    ) -> Mirror:
        """A local copy of the store, kept equal to the server by incremental sync."""
        return Mirror(
            lambda since: self.list(since=since, user=user, project=project),
            storage=storage,
            events=lambda since: self.events(since=since, user=user, project=project),
        )


class AsyncMemories:
    """The memory API, for the async client (`AsyncMnemo.memories`)."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def list(
        self, *, since: str | None = None, user: str | None = None, project: str | None = None
    ) -> ListResult:
        """Every active memory of the store, or with `since` what changed after it."""
        return parse_list((await self._transport.send(_calls.list(since, user, project))).json())

    async def get(self, id: str, *, user: str | None = None) -> Memory:
        """One memory; MnemoError 404 for one that does not exist or may not be seen."""
        return parse_memory_answer((await self._transport.send(_calls.get(id, user))).json())

    async def add(
        self,
        content: str,
        *,
        category: Category | None = None,
        user: str | None = None,
        project: str | None = None,
    ) -> AddResult:
        """Adds a memory, or folds it into an equal one (`created` False)."""
        response = await self._transport.send(_calls.add(content, category, user, project))
        return parse_add(response.status_code, response.json())

    async def update(
        self,
        id: str,
        *,
        content: str | NotGiven = UNSET,
        category: Category | None | NotGiven = UNSET,
        base_updated_at: datetime | str | None = None,
        user: str | None = None,
    ) -> Memory:
        """Changes the content, the category (None removes it) or both."""
        call = _calls.update(id, content, category, base_updated_at, user)
        return parse_memory_answer((await self._transport.send(call)).json())

    async def delete(self, id: str, *, user: str | None = None) -> None:
        """Deletes a memory; deleting it again succeeds as well."""
        await self._transport.send(_calls.delete(id, user))

    async def search(
        self,
        q: str,
        *,
        limit: int | None = None,
        category: Category | None = None,
        user: str | None = None,
        project: str | None = None,
    ) -> SearchResult:
        """The active memories that match `q`, best first, each with its score."""
        call = _calls.search(q, limit, category, user, project)
        return parse_search((await self._transport.send(call)).json())

    async def import_(
        self,
        memories: Iterable[ImportItem | str],
        *,
        user: str | None = None,
        project: str | None = None,
    ) -> ImportResult:
        """Adds up to 1,000 memories in one write, each as an add."""
        call = _calls.import_(memories, user, project)
        return parse_import((await self._transport.send(call)).json())

    async def export(
        self, *, user: str | None = None, project: str | None = None
    ) -> AsyncMemoryExport:
        """Every memory of the store, streamed from one snapshot as it is iterated.

        >>> async with await mnemo.memories.export() as exported:
        ...     async for memory in exported:
        ...         save(memory)
        """
        response = await self._transport.send(_calls.export(user, project), stream=True)
        if CURSOR_HEADER not in response.headers:
            await response.aclose()  # AsyncMemoryExport raises: nothing will read the body.
        return AsyncMemoryExport(response)

    async def events(
        self,
        *,
        since: str | None = None,
        user: str | None = None,
        project: str | None = None,
        last_event_id: str | None = None,
    ) -> AsyncEventStream:
        """The store's change stream: see Memories.events.

        >>> async with await mnemo.memories.events(since=cursor) as events:
        ...     async for event in events:
        ...         handle(event)
        """
        call = _calls.events(since, user, project, last_event_id)
        return AsyncEventStream(await self._transport.send(call, stream=True))

    async def erase(
        self,
        *,
        user: str | None = None,
        project: str | None = None,
        category: Category | None = None,
    ) -> int:
        """Deletes every memory of the store, or of one category; how many were deleted."""
        call = _calls.erase(user, project, category)
        return int((await self._transport.send(call)).json()["deleted"])

    def mirror(
        self,
        *,
        user: str | None = None,
        project: str | None = None,
        storage: AsyncMirrorStorage | None = None,
    ) -> AsyncMirror:
        """A local copy of the store, kept equal to the server by incremental sync."""

        async def pull(since: str | None) -> ListResult:
            return await self.list(since=since, user=user, project=project)

        async def events(since: str | None) -> AsyncEventStream:
            return await self.events(since=since, user=user, project=project)

        return AsyncMirror(pull, storage=storage, events=events)
