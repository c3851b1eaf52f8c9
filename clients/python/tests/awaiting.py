"""The sync client seen through coroutines, so that one test body drives both clients.

Every call still runs the sync client's own code (its transport, its retries, its iterators);
only the result is handed back through an `await`, which costs nothing and hides nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any

from mnemo import EndUsers, EventStream, Memories, MemoryExport, Mirror, Mnemo


class AwaitedExport:
    """A sync MemoryExport with the async one's surface."""

    def __init__(self, export: MemoryExport) -> None:
        self.export = export
        self.cursor = export.cursor

    def __aiter__(self) -> AwaitedExport:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self.export)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self.export.close()

    async def __aenter__(self) -> AwaitedExport:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.export.close()


class AwaitedEvents:
    """A sync EventStream with the async one's surface."""

    def __init__(self, events: EventStream) -> None:
        self.events = events

    def __aiter__(self) -> AwaitedEvents:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self.events)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self.events.close()

    async def __aenter__(self) -> AwaitedEvents:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.events.close()


def _awaited(function: Callable[..., Any]) -> Callable[..., Any]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return call


class Awaiting:
    """`Mnemo`, its `memories`, `end_users` or a `Mirror`, with the async client's surface."""

    def __init__(self, target: Mnemo | Memories | EndUsers | Mirror) -> None:
        self.target = target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.target, name)
        if isinstance(value, (Memories, EndUsers)):
            return Awaiting(value)
        if isinstance(self.target, Memories) and name == "export":
            export = value
            return _awaited(lambda **kwargs: AwaitedExport(export(**kwargs)))
        if isinstance(self.target, Memories) and name == "events":
            events = value
            return _awaited(lambda **kwargs: AwaitedEvents(events(**kwargs)))
        if isinstance(self.target, Memories) and name == "mirror":
            mirror = value
            return lambda **kwargs: Awaiting(mirror(**kwargs))
        if name == "on_change" or not callable(value):
            return value
        return _awaited(value)
