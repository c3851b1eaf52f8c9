"""The change stream through the client, against the real server: its events typed, resumed
from an event's cursor, a refusal raised before the first event; and a mirror following the
stream (both clients) — changes applied a batch at a time with no pull but the first, equal to
the server's list under random writes by another client, ended by a refusal the stream sends."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import MAIN, Connect, Member, Seen, open_client, take_member
from mnemo import (
    AsyncMirror,
    AsyncMnemo,
    ChangeEvent,
    DeleteEvent,
    Memory,
    MemoryEvent,
    Mirror,
    MirrorChange,
    MnemoError,
    SyncEvent,
)

OWNER = MAIN["owner"]["token"]
FOREVER = 3600.0  # Pulls an hour apart: only the stream can bring a change in time.


async def until_sync(events: Any) -> list[MemoryEvent]:
    """Events of `events` up to the next SyncEvent (included)."""
    taken: list[MemoryEvent] = []
    async for event in events:
        taken.append(event)
        if isinstance(event, SyncEvent):
            return taken
    raise AssertionError("the stream ended before a sync event")


async def test_events_typed_each_with_a_cursor_to_resume_from(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    cursor = (await mnemo.memories.list()).cursor
    async with await mnemo.memories.events(since=cursor) as events:
        assert await until_sync(events) == [SyncEvent(cursor)]
        first = (await mnemo.memories.add("Prefers tea")).memory
        second = (await mnemo.memories.add("Walks to work")).memory
        await mnemo.memories.delete(first.id)
        seen: list[MemoryEvent] = []
        while not any(isinstance(event, DeleteEvent) for event in seen):
            seen.extend(await until_sync(events))
    changes = [event for event in seen if not isinstance(event, SyncEvent)]
    assert [type(event) for event in changes] == [ChangeEvent, ChangeEvent, DeleteEvent]
    assert [getattr(event, "memory", None) for event in changes] == [first, second, None]
    assert changes[2] == DeleteEvent(first.id, changes[2].cursor)
    assert all(event.cursor for event in changes)
    assert isinstance(seen[-1], SyncEvent)
    assert seen[-1].cursor == (await mnemo.memories.list()).cursor

    # From the first change's cursor, as Last-Event-ID (which wins over `since`): the rest.
    async with await mnemo.memories.events(
        since="ignored", last_event_id=changes[0].cursor
    ) as resumed:
        rest = await until_sync(resumed)
    assert [type(event) for event in rest] == [ChangeEvent, DeleteEvent, SyncEvent]
    assert rest[0] == changes[1] and rest[1] == changes[2]


async def test_without_a_cursor_every_memory_comes_first(connect: Connect, member: Member) -> None:
    mnemo = connect(member.token)
    kept = (await mnemo.memories.add("Kept since before")).memory
    async with await mnemo.memories.events() as events:
        first = await until_sync(events)
    assert [getattr(event, "memory", None) for event in first[:-1]] == [kept]


async def test_a_refusal_is_raised_before_the_first_event(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    for since, status, message in [("nope", 400, "invalid cursor")]:
        try:
            await mnemo.memories.events(since=since)
            raise AssertionError("the stream opened")
        except MnemoError as error:
            assert (error.status, error.message) == (status, message)
    stale = MAIN["stale"]
    try:
        await connect(stale["token"]).memories.events(since=stale["cursor"])
        raise AssertionError("the stream opened")
    except MnemoError as error:
        assert error.status == 410


def pulls(seen: Seen) -> int:
    return sum(
        1
        for request in seen.requests
        if request.method == "GET" and request.url.path == "/api/v1/memory"
    )


class Following:
    """A mirror of either kind following the stream in the background (a thread for the sync
    one), its changes heard on this event loop."""

    def __init__(self, kind: str, mirror: Any) -> None:
        self.heard: asyncio.Queue[MirrorChange] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        self.mirror: Mirror | AsyncMirror = mirror.target if kind == "sync" else mirror
        self.mirror.on_change(
            lambda change: loop.call_soon_threadsafe(self.heard.put_nowait, change)
        )
        self._stop: Callable[[], None]
        if isinstance(self.mirror, Mirror):
            stop = threading.Event()
            self._stop = stop.set
            self.task: asyncio.Future[None] = asyncio.ensure_future(
                asyncio.to_thread(self.mirror.follow, FOREVER, stop=stop)
            )
        else:
            async_stop = asyncio.Event()
            self._stop = async_stop.set
            self.task = asyncio.ensure_future(self.mirror.follow(FOREVER, stop=async_stop))

    async def next(self) -> MirrorChange:
        return await asyncio.wait_for(self.heard.get(), 10)

    async def cursor(self) -> str | None:
        value = self.mirror.storage.cursor()
        assert value is None or isinstance(value, str)
        return value

    async def memories(self) -> list[Memory]:
        held = self.mirror.storage.all()
        assert isinstance(held, list)
        return held

    async def stop(self) -> None:
        """Stops following: it must end promptly, the stream closed."""
        self._stop()
        started = time.monotonic()
        await asyncio.wait_for(self.task, 5)
        assert time.monotonic() - started < 1


async def test_a_mirror_following_the_stream_pulls_once_and_applies_each_batch(
    kind: str, connect: Connect, member: Member
) -> None:
    owner = connect(OWNER)
    seen = Seen()
    mnemo = connect(member.token, seen=seen)
    following = Following(kind, mnemo.memories.mirror())
    try:
        first = await following.next()
        assert (first.full, first.upserted, first.removed) == (True, [], [])
        written = (await owner.memories.add("Written by the owner", user=member.id)).memory
        change = await following.next()
        assert (change.full, change.upserted, change.removed) == (False, [written], [])
        await owner.memories.delete(written.id, user=member.id)
        change = await following.next()
        assert (change.full, change.upserted, change.removed) == (False, [], [written.id])
        assert await following.memories() == []
        assert pulls(seen) == 1
        assert change.cursor == await following.cursor() == (await mnemo.memories.list()).cursor
    finally:
        await following.stop()


CONTENTS = ["Likes tea", "likes TEA!", "Runs at dawn", "Plays chess"]
writes = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.sampled_from(CONTENTS)),
        st.tuples(st.just("edit"), st.integers(0, 9), st.sampled_from(CONTENTS)),
        st.tuples(st.just("delete"), st.integers(0, 9)),
        st.tuples(st.just("erase")),
    ),
    max_size=8,
)
# One store a kind, for every example: the mirror starts from a full pull of whatever it holds.
_stores: dict[str, Member] = {}


async def copy_ends_equal_to_the_list(kind: str, steps: list[tuple[Any, ...]]) -> None:
    target = _stores.setdefault(kind, take_member())
    owner, close_owner = open_client(kind, OWNER)
    mnemo, close = open_client(kind, target.token)
    following = Following(kind, mnemo.memories.mirror())
    try:
        await following.next()
        acting = target.id
        for step in steps:
            if step[0] == "add":
                await owner.memories.add(step[1], user=acting)
            elif step[0] == "erase":
                await owner.memories.erase(user=acting)
            else:
                held = (await owner.memories.list(user=acting)).memories
                if not held:
                    continue
                chosen = held[step[1] % len(held)]
                if step[0] == "delete":
                    await owner.memories.delete(chosen.id, user=acting)
                else:
                    try:
                        await owner.memories.update(chosen.id, content=step[2], user=acting)
                    except MnemoError as error:
                        assert error.status == 409  # Equal to another memory once normalized.
        final = await mnemo.memories.list()
        deadline = time.monotonic() + 5
        while await following.cursor() != final.cursor:
            assert time.monotonic() < deadline, "the mirror did not catch up"
            await asyncio.sleep(0.01)
        by_id = sorted(await following.memories(), key=lambda memory: memory.id)
        assert by_id == sorted(final.memories, key=lambda memory: memory.id)
    finally:
        await following.stop()
        await close()
        await close_owner()


@settings(max_examples=8)
@given(kind=st.sampled_from(["sync", "async"]), steps=writes)
def test_under_random_writes_by_another_client_the_copy_ends_equal_to_the_list(
    kind: str, steps: list[tuple[Any, ...]]
) -> None:
    asyncio.run(copy_ends_equal_to_the_list(kind, steps))


async def test_an_error_event_ends_following_with_its_refusal(kind: str, connect: Connect) -> None:
    follower, target = take_member(), take_member()
    owner = connect(OWNER)
    following = Following(kind, connect(follower.token).memories.mirror(user=target.id))
    try:
        await following.next()
        await owner.memories.add("Something to start with", user=target.id)
        await following.next()
        # Removed from the organization by its owner, through the API.
        async with httpx.AsyncClient() as http:
            removed = await http.delete(
                f"{MAIN['url']}/api/v1/orgs/{MAIN['orgId']}/members/{follower.id}",
                headers={"authorization": f"Bearer {OWNER}"},
            )
            assert removed.status_code == 200, removed.text
        # A write to the store wakes the stream, which judges the caller again.
        await owner.memories.add("Written after the removal", user=target.id)
        try:
            await asyncio.wait_for(following.task, 10)
            raise AssertionError("following went on after the stream's refusal")
        except MnemoError as error:
            assert (error.status, error.message) == (403, "not a member of this organization")
    finally:
        if not following.task.done():
            await following.stop()
