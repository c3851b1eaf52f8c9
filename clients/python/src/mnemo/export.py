"""An export: the memories of one snapshot, read line by line as they arrive."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Iterator
from types import TracebackType

import httpx

from .models import Memory, parse_memory

CURSOR_HEADER = "mnemo-cursor"


def _cursor_of(response: httpx.Response) -> str:
    cursor = response.headers.get(CURSOR_HEADER)
    if cursor is None:
        raise TypeError("the export answered without its Mnemo-Cursor header")
    return str(cursor)


def _lines(buffer: bytearray, chunk: bytes) -> Iterator[bytes]:
    """The complete lines of `buffer + chunk`, leaving the rest in `buffer`.

    Split on `\\n` bytes alone: a memory may hold U+2028 or U+0085, which JSON leaves unescaped
    and which the line readers of httpx (and `str.splitlines`) would take for line ends.
    """
    buffer += chunk
    start = 0
    while (end := buffer.find(b"\n", start)) != -1:
        yield bytes(buffer[start:end])
        start = end + 1
    del buffer[:start]


def _memory_of(line: bytes) -> Memory | None:
    return parse_memory(json.loads(line)) if line.strip() else None


class MemoryExport(Iterator[Memory]):
    """Every memory of a store, streamed from one snapshot as it is iterated.

    `cursor` is that snapshot's: `memories.list(since=export.cursor)` answers every change made
    after it. Iterating to the end releases the connection; to stop early, `close()` it or use
    it as a context manager.
    """

    def __init__(self, response: httpx.Response) -> None:
        if CURSOR_HEADER not in response.headers:
            response.close()  # _cursor_of raises: nothing will read the body.
        self.cursor = _cursor_of(response)
        self._response = response
        self._chunks = response.iter_bytes()
        self._buffer = bytearray()
        self._ready: deque[Memory] = deque()
        self._done = False

    def __iter__(self) -> MemoryExport:
        return self

    def __next__(self) -> Memory:
        try:
            while not self._ready:
                if self._done:
                    raise StopIteration
                chunk = next(self._chunks, None)
                if chunk is None:
                    self._done = True
                    last = _memory_of(bytes(self._buffer))
                    self.close()
                    if last is not None:
                        self._ready.append(last)
                    continue
                self._ready.extend(
                    memory
                    for line in _lines(self._buffer, chunk)
                    if (memory := _memory_of(line)) is not None
                )
            return self._ready.popleft()
        except BaseException as error:
            if not isinstance(error, StopIteration):
                self.close()
            raise

    def close(self) -> None:
        """Ends the stream, which ends the server's snapshot at once."""
        self._done = True
        self._response.close()

    def __enter__(self) -> MemoryExport:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncMemoryExport(AsyncIterator[Memory]):
    """MemoryExport for the async client: `async for`, `aclose()`, `async with`."""

    def __init__(self, response: httpx.Response) -> None:
        self.cursor = _cursor_of(response)
        self._response = response
        self._chunks = response.aiter_bytes()
        self._buffer = bytearray()
        self._ready: deque[Memory] = deque()
        self._done = False

    def __aiter__(self) -> AsyncMemoryExport:
        return self

    async def __anext__(self) -> Memory:
        try:
            while not self._ready:
                if self._done:
                    raise StopAsyncIteration
                chunk = await anext(self._chunks, None)
                if chunk is None:
                    self._done = True
                    last = _memory_of(bytes(self._buffer))
                    await self.aclose()
                    if last is not None:
                        self._ready.append(last)
                    continue
                self._ready.extend(
                    memory
                    for line in _lines(self._buffer, chunk)
                    if (memory := _memory_of(line)) is not None
                )
            return self._ready.popleft()
        except BaseException as error:
            if not isinstance(error, StopAsyncIteration):
                await self.aclose()
            raise

    async def aclose(self) -> None:
        self._done = True
        await self._response.aclose()

    async def __aenter__(self) -> AsyncMemoryExport:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
