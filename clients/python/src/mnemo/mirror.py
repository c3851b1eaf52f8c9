"""A local copy of one store, kept equal to the server by the memory API's incremental sync.

The procedure is the README's ("Incremental sync"): the first pull takes the whole store; each
later one asks for what changed since the stored cursor, upserts the changed memories, removes
the deleted ones and stores the new cursor with them. A cursor the server can no longer serve
(410: older than the kept deletions; or 400 `invalid cursor`: another store's, say) is dropped
for a full pull in the same call. `follow()` keeps the copy current by the store's change stream
(`memories.events`): a pull to catch up, then each batch of events applied as one change with the
cursor of its `sync` event. The design is the TypeScript client's `MemoryMirror`.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from .errors import MnemoError
from .events import ChangeEvent, DeleteEvent, ErrorEvent, MemoryEvent, SyncEvent
from .models import ListResult, Memory

T = TypeVar("T")

# Waiting after failures in a row doubles each time, up to this.
MAX_BACKOFF_SECONDS = 60.0
# Refusals that asking again cannot change: following ends with them.
FINAL_STATUSES = frozenset({400, 401, 403, 404})
# A stream that ends sooner than this after it opened counts as a failure (no tight loop).
SHORTEST_STREAM_SECONDS = 1.0
# How often a sync follow looks whether `stop` was set while it waits on the stream.
STOP_POLL_SECONDS = 0.05


class EventSource(Protocol):
    """What Mirror follows: `Memories.events`' stream, opened from a cursor."""

    def __iter__(self) -> EventSource: ...

    def __next__(self) -> MemoryEvent: ...

    def close(self) -> None: ...


class AsyncEventSource(Protocol):
    def __aiter__(self) -> AsyncIterator[MemoryEvent]: ...

    async def aclose(self) -> None: ...


class _Batch:
    """The events since the last `sync`: what one change will upsert and remove."""

    def __init__(self) -> None:
        self.upserted: dict[str, Memory] = {}
        self.removed: dict[str, None] = {}  # Ordered, as the events came.

    def take(self, event: MemoryEvent) -> MirrorChange | None:
        """Adds `event`; the change a `sync` event completes; raises an `error` event's refusal."""
        if isinstance(event, ChangeEvent):
            self.upserted[event.memory.id] = event.memory
            self.removed.pop(event.memory.id, None)
        elif isinstance(event, DeleteEvent):
            self.upserted.pop(event.id, None)
            self.removed[event.id] = None
        elif isinstance(event, SyncEvent):
            change = MirrorChange(
                False, list(self.upserted.values()), list(self.removed), event.cursor
            )
            self.upserted, self.removed = {}, {}
            return change
        elif isinstance(event, ErrorEvent):
            raise MnemoError(event.status, event.error, {"error": event.error})
        return None


class _StreamEnded(ConnectionError):
    """The change stream ended as soon as it opened: counted as a failure."""


def _final(error: Exception) -> bool:
    return isinstance(error, MnemoError) and error.status in FINAL_STATUSES


def _counts(error: Exception) -> bool:
    """Whether a failure of following counts (told, waited after); a cursor the stream will not
    serve does not: the next pull starts over in full."""
    return not (isinstance(error, MnemoError) and _unservable(error))


def _pause(interval: float, failures: int) -> float:
    return interval if failures == 0 else min(MAX_BACKOFF_SECONDS, interval * 2.0**failures)


@dataclass(frozen=True)
class MirrorChange:
    """What one pull changed.

    A full pull replaces everything held with `upserted`; `removed` then names what was held and
    is gone, so that a listener can update a view without reading the whole copy. An incremental
    pull upserts `upserted` and removes `removed` (the answer's `deleted`).
    """

    full: bool
    upserted: list[Memory]
    removed: list[str]
    cursor: str

    @property
    def empty(self) -> bool:
        return not (self.full or self.upserted or self.removed)


class MirrorStorage(Protocol):
    """Where a mirror keeps its copy.

    `apply` must store a change whole or not at all, its cursor with it: a copy whose cursor ran
    ahead of its memories would miss changes for good, while one whose cursor lagged behind only
    pulls some again (upserts are idempotent).
    """

    def cursor(self) -> str | None:
        """The cursor of the last change applied; None before the first."""
        ...

    def get(self, id: str) -> Memory | None: ...

    def all(self) -> list[Memory]:
        """Every memory held, in no particular order."""
        ...

    def apply(self, change: MirrorChange) -> None: ...


class AsyncMirrorStorage(Protocol):
    """MirrorStorage for AsyncMirror: each method may also be a coroutine (a database's)."""

    def cursor(self) -> str | None | Awaitable[str | None]: ...

    def get(self, id: str) -> Memory | None | Awaitable[Memory | None]: ...

    def all(self) -> list[Memory] | Awaitable[list[Memory]]: ...

    def apply(self, change: MirrorChange) -> None | Awaitable[None]: ...


class InMemoryStorage:
    """The default storage: a dict, gone with the process. Safe to read from other threads while
    a sync applies a change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[str, Memory] = {}
        self._cursor: str | None = None

    def cursor(self) -> str | None:
        return self._cursor

    def get(self, id: str) -> Memory | None:
        return self._items.get(id)

    def all(self) -> list[Memory]:
        with self._lock:
            return list(self._items.values())

    def apply(self, change: MirrorChange) -> None:
        with self._lock:
            items = {} if change.full else self._items
            for id in change.removed:
                items.pop(id, None)
            for memory in change.upserted:
                items[memory.id] = memory
            self._items = items
            self._cursor = change.cursor


class _StopWatcher:
    """Closes the stream a sync follow reads once `stop` is set.

    The reading thread blocks in the socket, and a `threading.Event` calls nobody when it is set:
    a thread of its own looks every STOP_POLL_SECONDS while following and closes the stream
    being read, which EventStream allows from another thread (it shuts the socket down).
    """

    def __init__(self, stop: threading.Event) -> None:
        self._stop = stop
        self._lock = threading.Lock()
        self._events: EventSource | None = None
        self._ended = False
        self._thread = threading.Thread(target=self._run, name="mnemo-follow-stop", daemon=True)
        self._thread.start()

    def watch(self, events: EventSource | None) -> bool:
        """Closes `events` when stop is set; False when it already is (not to be read)."""
        with self._lock:
            self._events = events
            return not self._stop.is_set()

    def end(self) -> None:
        self._ended = True
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(STOP_POLL_SECONDS):
            if self._ended:
                return
        with self._lock:
            if self._events is not None:
                self._events.close()


def _unservable(error: MnemoError) -> bool:
    return error.status == 410 or (error.status == 400 and error.message == "invalid cursor")


def _incremental(answer: ListResult) -> MirrorChange:
    return MirrorChange(False, answer.memories, answer.deleted or [], answer.cursor)


def _full(answer: ListResult, held: list[Memory]) -> MirrorChange:
    present = {memory.id for memory in answer.memories}
    removed = [memory.id for memory in held if memory.id not in present]
    return MirrorChange(True, answer.memories, removed, answer.cursor)


class _Listeners:
    def __init__(self) -> None:
        self._by_key: dict[int, Callable[[MirrorChange], object]] = {}
        self._keys = itertools.count()

    def add(self, listener: Callable[[MirrorChange], object]) -> Callable[[], None]:
        key = next(self._keys)
        self._by_key[key] = listener

        def unsubscribe() -> None:
            self._by_key.pop(key, None)

        return unsubscribe

    def now(self) -> list[Callable[[MirrorChange], object]]:
        return list(self._by_key.values())


class _Pull:
    """One pull that several `sync()` calls may wait for."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.change: MirrorChange | None = None
        self.error: BaseException | None = None


class Mirror:
    """A local copy of one store, for the sync client (`Mnemo.memories.mirror()`).

    >>> mirror = mnemo.memories.mirror()
    >>> stop = mirror.on_change(lambda change: render(change.upserted, change.removed))
    >>> mirror.sync()
    """

    def __init__(
        self,
        pull: Callable[[str | None], ListResult],
        *,
        storage: MirrorStorage | None = None,
        events: Callable[[str | None], EventSource] | None = None,
    ) -> None:
        self._list = pull
        self._events = events
        self.storage: MirrorStorage = InMemoryStorage() if storage is None else storage
        self._listeners = _Listeners()
        self._lock = threading.Lock()
        # Changes are stored one at a time, in the order they were read: a pull's and a batch's.
        self._applying = threading.RLock()
        self._running: _Pull | None = None
        self._queued: _Pull | None = None

    def memories(self) -> list[Memory]:
        return self.storage.all()

    def get(self, id: str) -> Memory | None:
        return self.storage.get(id)

    def cursor(self) -> str | None:
        return self.storage.cursor()

    def on_change(self, listener: Callable[[MirrorChange], object]) -> Callable[[], None]:
        """Calls `listener` after each pull that changed the copy; returns what stops it."""
        return self._listeners.add(listener)

    def sync(self) -> MirrorChange:
        """One pull, applied, and what it changed.

        Pulls of one mirror run one at a time, each from the cursor the one before stored: a call
        made while one runs waits for it and then pulls again, so that it sees every write made
        before it was called (calls made meanwhile share that second pull).
        """
        with self._lock:
            previous = None
            if self._running is None:
                pull = self._running = _Pull()
                runs = True
            elif self._queued is None:
                previous = self._running
                pull = self._queued = _Pull()
                runs = True
            else:
                pull = self._queued
                runs = False
        if runs:
            try:
                if previous is not None:
                    previous.done.wait()
                pull.change = self._pull()
            except BaseException as error:
                pull.error = error
            finally:
                with self._lock:
                    if self._running is pull:
                        # The pull queued meanwhile is the one running now.
                        self._running, self._queued = self._queued, None
                pull.done.set()
        else:
            pull.done.wait()
        if pull.error is not None:
            raise pull.error
        return cast(MirrorChange, pull.change)

    def follow(
        self,
        interval: float = 5.0,
        *,
        stream: bool = True,
        stop: threading.Event | None = None,
        on_error: Callable[[Exception], object] | None = None,
    ) -> None:
        """Keeps the copy current until `stop` is set: a pull to catch up, then the store's change
        stream, each batch of its events applied as one change when its `SyncEvent` comes; when
        the stream ends (the server restarting, a proxy closing it), a pull again and a new
        stream. With `stream=False`, a pull every `interval` seconds instead.

        A pull or a stream that fails is told to `on_error`, and following goes on, pulling
        again after `interval` seconds, waiting longer after each failure in a row (up to a
        minute). A refusal that asking again cannot change (400, 401, 403, 404; the stream's
        `ErrorEvent` too) ends it: `follow` raises it. Setting `stop` (from another thread)
        closes the stream at once.
        """
        stop = threading.Event() if stop is None else stop
        watcher = _StopWatcher(stop) if stream else None
        failures = 0
        try:
            while not stop.is_set():
                try:
                    self.sync()
                    if watcher is not None:
                        opened = time.monotonic()
                        self._follow_stream(watcher)
                        ended_soon = time.monotonic() - opened < SHORTEST_STREAM_SECONDS
                        if ended_soon and not stop.is_set():
                            raise _StreamEnded("the change stream ended as soon as it opened")
                    failures = 0
                except Exception as error:
                    if stop.is_set():
                        return
                    if _counts(error):
                        if _final(error):
                            raise
                        if on_error is not None:
                            on_error(error)
                        failures += 1
                if stream and failures == 0:
                    continue
                stop.wait(_pause(interval, failures))
        finally:
            if watcher is not None:
                watcher.end()

    def _follow_stream(self, watcher: _StopWatcher) -> None:
        """Applies the stream's events from the stored cursor until it ends."""
        if self._events is None:
            raise TypeError("this mirror has no change stream to follow: use stream=False")
        events = self._events(self.storage.cursor())
        try:
            if not watcher.watch(events):
                return
            batch = _Batch()
            for event in events:
                change = batch.take(event)
                if change is not None:
                    self._apply(change)
        finally:
            watcher.watch(None)
            events.close()

    def _apply(self, change: MirrorChange) -> None:
        """Stores `change` and tells the listeners when it changed anything."""
        with self._applying:
            self.storage.apply(change)
            if not change.empty:
                for listener in self._listeners.now():
                    listener(change)

    def _pull(self) -> MirrorChange:
        since = self.storage.cursor()
        answer = None
        if since is not None:
            try:
                answer = self._list(since)
            except MnemoError as error:
                if not _unservable(error):
                    raise
        if answer is not None:
            change = _incremental(answer)
        else:
            full = self._list(None)
            change = _full(full, self.storage.all())
        self._apply(change)
        return change


async def _settle(value: T | Awaitable[T]) -> T:
    if inspect.isawaitable(value):
        return cast(T, await value)
    return cast(T, value)


async def _unless_stopped(work: Coroutine[Any, Any, None], stop: asyncio.Event) -> bool:
    """Runs `work` until it ends (True; its exception raised) or `stop` is set (False: `work`
    cancelled, which closes the stream it reads). Cancelled, it cancels `work`."""
    task = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([task, stopped], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in (task, stopped):
            waiting.cancel()
        await asyncio.gather(task, stopped, return_exceptions=True)
    if task.cancelled():
        return False
    task.result()
    return True


class AsyncMirror:
    """Mirror for the async client (`AsyncMnemo.memories.mirror()`): the same procedure, pulls
    serialized on one event loop, a storage whose methods may be coroutines, and listeners that
    may be too."""

    def __init__(
        self,
        pull: Callable[[str | None], Awaitable[ListResult]],
        *,
        storage: AsyncMirrorStorage | None = None,
        events: Callable[[str | None], Awaitable[AsyncEventSource]] | None = None,
    ) -> None:
        self._list = pull
        self._events = events
        self._applying = asyncio.Lock()
        self.storage: AsyncMirrorStorage = InMemoryStorage() if storage is None else storage
        self._listeners = _Listeners()
        self._running: asyncio.Future[MirrorChange] | None = None
        self._queued: asyncio.Future[MirrorChange] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def memories(self) -> list[Memory]:
        return await _settle(self.storage.all())

    async def get(self, id: str) -> Memory | None:
        return await _settle(self.storage.get(id))

    async def cursor(self) -> str | None:
        return await _settle(self.storage.cursor())

    def on_change(self, listener: Callable[[MirrorChange], object]) -> Callable[[], None]:
        """Calls `listener` (awaited when it is a coroutine function) after each pull that
        changed the copy; returns what stops it."""
        return self._listeners.add(listener)

    async def sync(self) -> MirrorChange:
        """One pull, applied: see Mirror.sync. A cancelled call leaves its pull running for the
        calls that share it."""
        previous = None
        if self._running is None:
            pull = self._running = asyncio.get_running_loop().create_future()
            runs = True
        elif self._queued is None:
            previous = self._running
            pull = self._queued = asyncio.get_running_loop().create_future()
            runs = True
        else:
            pull = self._queued
            runs = False
        if runs:
            # Held here: the event loop keeps only a weak reference to a task.
            task = asyncio.ensure_future(self._run(pull, previous))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(pull)

    async def follow(
        self,
        interval: float = 5.0,
        *,
        stream: bool = True,
        stop: asyncio.Event | None = None,
        on_error: Callable[[Exception], object] | None = None,
    ) -> None:
        """Keeps the copy current until `stop` is set or the task is cancelled, by the change
        stream or (`stream=False`) a pull every `interval` seconds: see Mirror.follow."""
        stop = asyncio.Event() if stop is None else stop
        failures = 0
        while not stop.is_set():
            try:
                await self.sync()
                if stream:
                    opened = time.monotonic()
                    if not await _unless_stopped(self._follow_stream(), stop):
                        return
                    ended_soon = time.monotonic() - opened < SHORTEST_STREAM_SECONDS
                    if ended_soon and not stop.is_set():
                        raise _StreamEnded("the change stream ended as soon as it opened")
                failures = 0
            except Exception as error:
                if stop.is_set():
                    return
                if _counts(error):
                    if _final(error):
                        raise
                    if on_error is not None:
                        on_error(error)
                    failures += 1
            if stream and failures == 0:
                continue
            try:
                await asyncio.wait_for(stop.wait(), _pause(interval, failures))
            except asyncio.TimeoutError:
                pass

    async def _follow_stream(self) -> None:
        """Applies the stream's events from the stored cursor until it ends."""
        if self._events is None:
            raise TypeError("this mirror has no change stream to follow: use stream=False")
        events = await self._events(await _settle(self.storage.cursor()))
        try:
            batch = _Batch()
            async for event in events:
                change = batch.take(event)
                if change is not None:
                    await self._apply(change)
        finally:
            await events.aclose()

    async def _apply(self, change: MirrorChange) -> None:
        """Stores `change` (after any being stored) and tells the listeners when it changed
        anything."""
        async with self._applying:
            await _settle(self.storage.apply(change))
            if not change.empty:
                for listener in self._listeners.now():
                    outcome = listener(change)
                    if inspect.isawaitable(outcome):
                        await outcome

    async def _run(
        self, pull: asyncio.Future[MirrorChange], previous: asyncio.Future[MirrorChange] | None
    ) -> None:
        try:
            if previous is not None:
                await asyncio.wait([previous])
            pull.set_result(await self._pull())
        except asyncio.CancelledError:
            pull.cancel()
            raise
        except BaseException as error:
            pull.set_exception(error)
        finally:
            if self._running is pull:
                self._running, self._queued = self._queued, None
            elif self._queued is pull:
                self._queued = None

    async def _pull(self) -> MirrorChange:
        since = await _settle(self.storage.cursor())
        answer = None
        if since is not None:
            try:
                answer = await self._list(since)
            except MnemoError as error:
                if not _unservable(error):
                    raise
        if answer is not None:
            change = _incremental(answer)
        else:
            full = await self._list(None)
            change = _full(full, await _settle(self.storage.all()))
        await self._apply(change)
        return change
