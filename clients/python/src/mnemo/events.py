"""A store's change stream (`GET /api/v1/memory/events`): its events, typed, as they arrive."""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeAlias

import httpx

from .models import Memory, parse_memory
from .sse import ServerSentEvent, ServerSentEventParser


@dataclass(frozen=True)
class ChangeEvent:
    """A memory added or changed: upsert it. `cursor` is what came after this event: the list
    takes it as `since`, the stream as `since` or `last_event_id`."""

    memory: Memory
    cursor: str


@dataclass(frozen=True)
class DeleteEvent:
    """A memory deleted: remove it."""

    id: str
    cursor: str


@dataclass(frozen=True)
class SyncEvent:
    """Everything up to `cursor` has been sent: a copy that applied the events so far is
    current."""

    cursor: str


@dataclass(frozen=True)
class ErrorEvent:
    """The caller may no longer read the store (suspended, removed, the memory switched off, the
    credential expired): the stream ends after it, and opening it again gets the refusal."""

    error: str
    status: int
    cursor: str


MemoryEvent: TypeAlias = ChangeEvent | DeleteEvent | SyncEvent | ErrorEvent


def memory_event(message: ServerSentEvent) -> MemoryEvent | None:
    """The event of a kind this client knows; None for a kind added later (passed over)."""
    if message.event not in ("change", "delete", "sync", "error"):
        return None
    data: Any = json.loads(message.data)
    cursor = message.id
    if message.event == "change":
        return ChangeEvent(parse_memory(data), cursor)
    if message.event == "delete":
        return DeleteEvent(str(data["id"]), cursor)
    if message.event == "sync":
        return SyncEvent(cursor)
    return ErrorEvent(str(data["error"]), int(data["status"]), cursor)


def _events_of(parser: ServerSentEventParser, chunk: bytes) -> list[MemoryEvent]:
    return [event for message in parser.feed(chunk) if (event := memory_event(message))]


class EventStream(Iterator[MemoryEvent]):
    """The events of a change stream, read as it is iterated, until the server ends it or it is
    closed (`close()`, or leaving it as a context manager).

    `close()` may be called from another thread while one waits in `next()`: that wait then ends
    at once, and the iteration with it.
    """

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self._chunks = response.iter_bytes()
        self._parser = ServerSentEventParser()
        self._ready: deque[MemoryEvent] = deque()
        self._lock = threading.Lock()
        self._reading = False
        self._closed = False

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> MemoryEvent:
        while not self._ready:
            with self._lock:
                if self._closed:
                    self._finish()
                    raise StopIteration
                self._reading = True
            try:
                chunk = next(self._chunks, None)
            except BaseException as error:
                with self._lock:
                    self._reading = False
                    interrupted = self._closed
                self._finish()
                if interrupted and isinstance(error, Exception):
                    raise StopIteration from None
                raise
            with self._lock:
                self._reading = False
            if chunk is None:
                self._finish()
                raise StopIteration
            try:
                self._ready.extend(_events_of(self._parser, chunk))
            except BaseException:
                self._finish()
                raise
        with self._lock:
            if self._closed:
                self._finish()
                raise StopIteration
        return self._ready.popleft()

    def close(self) -> None:
        """Ends the stream: from the thread that iterates, or from another one."""
        with self._lock:
            self._closed = True
            if self._reading:
                # Another thread waits in a read of the socket. httpx 0.23's sync client cannot
                # cancel that read: a read timeout fails the response (httpcore closes the
                # connection, so each timeout would be a new stream), and closing the response
                # here would close the socket under the reader, which on Linux does not wake a
                # recv() blocked in another thread (and races httpcore's state). shutdown() does:
                # the read ends at once, and the reading thread closes the response itself.
                self._interrupt()
                return
        self._finish()

    def _interrupt(self) -> None:
        stream = self._response.extensions.get("network_stream")
        sock = None if stream is None else stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # Already closed: the read has ended anyway.
        else:
            # A transport without a socket (a test's, say): closing is all there is.
            self._response.close()

    def _finish(self) -> None:
        self._closed = True
        self._response.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncEventStream(AsyncIterator[MemoryEvent]):
    """EventStream for the async client: `async for`, `aclose()`, `async with`. Cancelling the
    task that waits for an event ends the stream."""

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self._chunks = response.aiter_bytes()
        self._parser = ServerSentEventParser()
        self._ready: deque[MemoryEvent] = deque()
        self._closed = False

    def __aiter__(self) -> AsyncEventStream:
        return self

    async def __anext__(self) -> MemoryEvent:
        try:
            while not self._ready:
                if self._closed:
                    raise StopAsyncIteration
                chunk = await anext(self._chunks, None)
                if chunk is None:
                    await self.aclose()
                    raise StopAsyncIteration
                self._ready.extend(_events_of(self._parser, chunk))
            return self._ready.popleft()
        except BaseException as error:
            if not isinstance(error, StopAsyncIteration):
                await self.aclose()
            raise

    async def aclose(self) -> None:
        """Ends the stream."""
        self._closed = True
        await self._response.aclose()

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
