"""The mirror: a property test (random writes by another client between syncs, after each of
which the mirror equals the server's full list exactly), a cursor the server no longer serves
turned into a full pull, syncs serialized, listeners, and storages of one's own."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import MAIN, SERVERS, Connect, Member, Seen, open_client, take_member
from mnemo import (
    CATEGORIES,
    UNSET,
    AsyncMirror,
    AsyncMnemo,
    Category,
    InMemoryStorage,
    ListResult,
    Memory,
    Mirror,
    MirrorChange,
    Mnemo,
    MnemoError,
    NotGiven,
)

OWNER = MAIN["owner"]["token"]

# Few contents, some equal once normalized, so that adds fold and updates collide.
CONTENTS = [
    "Likes tea",
    "likes TEA!",
    "Runs at dawn",
    "Reads at night",
    "Plays chess",
    "Owns a cat",
]
categories = st.sampled_from([None, *CATEGORIES])


@dataclass(frozen=True)
class Add:
    content: str
    category: Category | None


@dataclass(frozen=True)
class Update:
    target: int
    content: str | None
    category: Category | None | str  # "keep": not given


@dataclass(frozen=True)
class Delete:
    target: int


@dataclass(frozen=True)
class Erase:
    category: Category | None


Write = Add | Update | Delete | Erase

writes = st.one_of(
    st.builds(Add, st.sampled_from(CONTENTS), categories),
    st.builds(
        Update,
        st.integers(0, 40),
        st.none() | st.sampled_from(CONTENTS),
        st.sampled_from(["keep", None, *CATEGORIES]),
    ),
    st.builds(Delete, st.integers(0, 40)),
    st.builds(Erase, categories),
)
# Rounds of writes, each followed by one sync; the first sync is a full pull.
rounds = st.lists(st.lists(writes, max_size=6), min_size=1, max_size=4)


async def write(mnemo: AsyncMnemo, user: str, known: list[str], op: Write) -> None:
    """One write by the other client. Updating a memory deleted meanwhile is its 404."""
    if isinstance(op, Add):
        added = await mnemo.memories.add(op.content, category=op.category, user=user)
        if added.created:
            known.append(added.memory.id)
    elif isinstance(op, Erase):
        await mnemo.memories.erase(category=op.category, user=user)
    elif not known:
        return
    elif isinstance(op, Delete):
        await mnemo.memories.delete(known[op.target % len(known)], user=user)
    else:
        content: str | NotGiven = UNSET if op.content is None else op.content
        category: Category | None | NotGiven = (
            UNSET if op.category == "keep" else cast(Category | None, op.category)
        )
        if content is UNSET and category is UNSET:
            content = "Changed its mind"
        try:
            await mnemo.memories.update(
                known[op.target % len(known)], content=content, category=category, user=user
            )
        except MnemoError as error:
            assert (error.status, error.message) == (404, "memory not found")


def by_id(memories: list[Memory]) -> dict[str, Memory]:
    return {memory.id: memory for memory in memories}


async def mirror_follows_the_writes(kind: str, plan: list[list[Write]]) -> None:
    writer, close_writer = open_client(kind, OWNER)
    reader, close_reader = open_client(kind, OWNER)
    try:
        # A new end user: an empty store of this example's own.
        registered = await writer.end_users.register(f"mirror-{uuid.uuid4()}")
        user = registered.end_user.id
        mirror = reader.memories.mirror(user=user)
        heard: list[MirrorChange] = []
        mirror.on_change(heard.append)
        known: list[str] = []
        for index, writes_of_round in enumerate(plan):
            for op in writes_of_round:
                await write(writer, user, known, op)
            change = await mirror.sync()
            server = await writer.memories.list(user=user)
            assert change.full == (index == 0)
            assert by_id(await mirror.memories()) == by_id(server.memories)
            assert len(await mirror.memories()) == len(server.memories)
            assert await mirror.cursor() == change.cursor
            for memory in server.memories[:3]:
                assert await mirror.get(memory.id) == memory
            assert heard[-1:] == ([] if change.empty else [change])
            heard.clear()
        # Nothing written since: an empty change, which no listener hears of.
        quiet = await mirror.sync()
        assert (quiet.full, quiet.upserted, quiet.removed) == (False, [], [])
        assert heard == []
    finally:
        await close_writer()
        await close_reader()


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=rounds)
def test_after_each_sync_the_mirror_equals_the_servers_full_list(
    kind: str, plan: list[list[Write]]
) -> None:
    asyncio.run(mirror_follows_the_writes(kind, plan))


async def test_a_cursor_too_old_turns_into_a_full_pull_in_the_same_sync(connect: Connect) -> None:
    stale = MAIN["stale"]
    seen = Seen()
    mnemo = connect(stale["token"], seen=seen)
    # A copy made before the purge, holding a memory the server has no more.
    storage = InMemoryStorage()
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    ghost = Memory(str(uuid.uuid4()), "Held before the purge", None, at, at)
    storage.apply(MirrorChange(True, [ghost], [], stale["cursor"]))
    mirror = mnemo.memories.mirror(storage=storage)

    change = await mirror.sync()
    assert seen.statuses == [410, 200]
    server = await mnemo.memories.list()
    assert [memory.id for memory in server.memories] == [stale["keptId"]]
    assert change == MirrorChange(True, server.memories, [ghost.id], server.cursor)
    assert await mirror.memories() == server.memories
    assert await mirror.get(ghost.id) is None


async def test_a_cursor_of_another_store_turns_into_a_full_pull(
    connect: Connect, member: Member
) -> None:
    seen = Seen()
    mnemo = connect(member.token, seen=seen)
    added = await mnemo.memories.add("Keeps a diary")
    storage = InMemoryStorage()
    storage.apply(MirrorChange(False, [], [], MAIN["stale"]["cursor"]))
    change = await mnemo.memories.mirror(storage=storage).sync()
    assert seen.statuses == [201, 400, 200]
    assert (change.full, change.upserted, change.removed) == (True, [added.memory], [])


async def test_a_mirror_of_a_pool_or_of_another_member(connect: Connect, kind: str) -> None:
    pool = MAIN["projects"][3]
    project = pool["id"]
    editor = connect(pool["editor"]["token"])
    contributed = await editor.memories.add(f"Pool memory of the {kind} client", project=project)
    mirror = editor.memories.mirror(project=project)
    await mirror.sync()
    assert contributed.memory in await mirror.memories()

    other = take_member()
    owner = connect(OWNER)
    theirs = await owner.memories.add("Theirs alone", user=other.id)
    of_other = owner.memories.mirror(user=other.id)
    assert (await of_other.sync()).upserted == [theirs.memory]


async def test_listeners_hear_changes_until_they_unsubscribe(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    mirror = mnemo.memories.mirror()
    first: list[MirrorChange] = []
    second: list[MirrorChange] = []
    stop_first = mirror.on_change(first.append)
    mirror.on_change(second.append)
    full = await mirror.sync()
    assert first == second == [full]
    stop_first()
    added = await mnemo.memories.add("Collects stamps")
    change = await mirror.sync()
    assert change.upserted == [added.memory]
    assert (first, second) == ([full], [full, change])


def list_holding_the_first_answer(
    mnemo: Mnemo,
    user: str,
    answered: threading.Event,
    release: threading.Event,
    calls: list[str | None],
) -> Any:
    """A list whose first answer is read (`answered`), then held back until `release`."""

    def pull(since: str | None) -> ListResult:
        calls.append(since)
        answer = mnemo.memories.list(since=since, user=user)
        if len(calls) == 1:
            answered.set()
            release.wait(10)
        return answer

    return pull


def test_sync_syncs_of_one_mirror_run_one_at_a_time() -> None:
    with Mnemo(MAIN["url"], MAIN["orgId"], OWNER) as mnemo:
        user = mnemo.end_users.register(f"serial-{uuid.uuid4()}").end_user.id
        answered = threading.Event()
        release = threading.Event()
        calls: list[str | None] = []
        mirror = Mirror(list_holding_the_first_answer(mnemo, user, answered, release, calls))
        results: dict[str, MirrorChange] = {}

        def sync(name: str) -> None:
            results[name] = mirror.sync()

        first = threading.Thread(target=sync, args=("first",))
        first.start()
        assert answered.wait(10)
        # Written after the first pull read its answer, before the others were called.
        late = mnemo.memories.add("Written during the first pull", user=user).memory
        others = [threading.Thread(target=sync, args=(name,)) for name in ("second", "third")]
        for thread in others:
            thread.start()
        threading.Event().wait(0.2)
        assert len(calls) == 1  # The others wait for the first.
        release.set()
        for thread in [first, *others]:
            thread.join(10)
        assert results["first"].full and results["first"].upserted == []
        # The two that waited shared one pull, from the cursor the first stored.
        assert calls == [None, results["first"].cursor]
        assert results["second"] is results["third"]
        assert results["second"].upserted == [late]
        assert mirror.memories() == [late]


async def test_async_syncs_of_one_mirror_run_one_at_a_time() -> None:
    async with AsyncMnemo(MAIN["url"], MAIN["orgId"], OWNER) as mnemo:
        user = (await mnemo.end_users.register(f"serial-{uuid.uuid4()}")).end_user.id
        answered = asyncio.Event()
        release = asyncio.Event()
        calls: list[str | None] = []

        async def pull(since: str | None) -> ListResult:
            calls.append(since)
            answer = await mnemo.memories.list(since=since, user=user)
            if len(calls) == 1:
                answered.set()
                await release.wait()
            return answer

        mirror = AsyncMirror(pull)
        first = asyncio.ensure_future(mirror.sync())
        await asyncio.wait_for(answered.wait(), 10)
        late = (await mnemo.memories.add("Written during the first pull", user=user)).memory
        second = asyncio.ensure_future(mirror.sync())
        third = asyncio.ensure_future(mirror.sync())
        await asyncio.sleep(0.2)
        assert len(calls) == 1
        release.set()
        done_first, done_second, done_third = await asyncio.gather(first, second, third)
        assert done_first.full and done_first.upserted == []
        assert calls == [None, done_first.cursor]
        assert done_second is done_third
        assert done_second.upserted == [late]
        assert await mirror.memories() == [late]


class SqliteStorage:
    """A storage that outlives the process: each change applied in one transaction."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, check_same_thread=False)
        with self.db:
            self.db.execute("create table if not exists memories (id primary key, json)")
            self.db.execute("create table if not exists cursor (one primary key, value)")

    def cursor(self) -> str | None:
        row = self.db.execute("select value from cursor").fetchone()
        return None if row is None else str(row[0])

    def get(self, id: str) -> Memory | None:
        row = self.db.execute("select json from memories where id = ?", (id,)).fetchone()
        return None if row is None else self._memory(row[0])

    def all(self) -> list[Memory]:
        return [self._memory(row[0]) for row in self.db.execute("select json from memories")]

    def apply(self, change: MirrorChange) -> None:
        with self.db:  # One transaction: all of the change, its cursor with it, or nothing.
            if change.full:
                self.db.execute("delete from memories")
            self.db.executemany("delete from memories where id = ?", [(i,) for i in change.removed])
            self.db.executemany(
                "insert or replace into memories values (?, ?)",
                [(m.id, self._json(m)) for m in change.upserted],
            )
            self.db.execute("insert or replace into cursor values (1, ?)", (change.cursor,))

    @staticmethod
    def _json(memory: Memory) -> str:
        times = (memory.created_at.isoformat(), memory.updated_at.isoformat())
        return json.dumps([memory.id, memory.content, memory.category, *times])

    @staticmethod
    def _memory(text: str) -> Memory:
        id, content, category, created_at, updated_at = json.loads(text)
        return Memory(
            id,
            content,
            category,
            datetime.fromisoformat(created_at),
            datetime.fromisoformat(updated_at),
        )


class AsyncDictStorage:
    """A storage whose methods are coroutines, as a database driver's would be."""

    def __init__(self) -> None:
        self.storage = InMemoryStorage()

    async def cursor(self) -> str | None:
        await asyncio.sleep(0)
        return self.storage.cursor()

    async def get(self, id: str) -> Memory | None:
        return self.storage.get(id)

    async def all(self) -> list[Memory]:
        return self.storage.all()

    async def apply(self, change: MirrorChange) -> None:
        await asyncio.sleep(0)
        self.storage.apply(change)


def test_sync_a_storage_of_ones_own_lets_a_new_mirror_go_on_from_its_cursor(
    tmp_path: Any,
) -> None:
    member = take_member()
    path = str(tmp_path / "mirror.sqlite")
    with Mnemo(MAIN["url"], MAIN["orgId"], member.token) as mnemo:
        kept = mnemo.memories.add("Kept on disk").memory
        first = mnemo.memories.mirror(storage=SqliteStorage(path))
        assert first.sync().full
        gone = mnemo.memories.add("Gone soon").memory
        mnemo.memories.delete(kept.id)
        # Another mirror, another process's say, over the same file: it pulls what changed.
        again = mnemo.memories.mirror(storage=SqliteStorage(path))
        change = again.sync()
        assert (change.full, change.upserted, change.removed) == (False, [gone], [kept.id])
        assert again.memories() == mnemo.memories.list().memories == [gone]


async def test_async_a_storage_whose_methods_are_coroutines() -> None:
    member = take_member()
    async with AsyncMnemo(MAIN["url"], MAIN["orgId"], member.token) as mnemo:
        added = (await mnemo.memories.add("Stored by a coroutine")).memory
        storage = AsyncDictStorage()
        mirror = mnemo.memories.mirror(storage=storage)
        assert (await mirror.sync()).upserted == [added]
        assert await mirror.get(added.id) == added
        assert await mirror.cursor() == storage.storage.cursor() is not None

        async def listener(change: MirrorChange) -> None:
            heard.append(change)

        heard: list[MirrorChange] = []
        mirror.on_change(listener)
        await mnemo.memories.delete(added.id)
        change = await mirror.sync()
        assert heard == [change] and change.removed == [added.id]



def test_sync_follow_pulls_again_and_again_until_stopped() -> None:
    member = take_member()
    with Mnemo(MAIN["url"], MAIN["orgId"], member.token) as mnemo:
        mirror = mnemo.memories.mirror()
        heard = threading.Event()
        seen: list[Memory] = []

        def listener(change: MirrorChange) -> None:
            seen.extend(change.upserted)
            if change.upserted:
                heard.set()

        mirror.on_change(listener)
        stop = threading.Event()
        following = threading.Thread(target=mirror.follow, args=(0.05,), kwargs={"stop": stop})
        following.start()
        try:
            added = mnemo.memories.add("Seen while following").memory
            assert heard.wait(10)
            assert seen == [added]
        finally:
            stop.set()
            following.join(5)
        assert not following.is_alive()


async def test_async_follow_pulls_again_and_again_until_stopped() -> None:
    member = take_member()
    async with AsyncMnemo(MAIN["url"], MAIN["orgId"], member.token) as mnemo:
        mirror = mnemo.memories.mirror()
        heard: asyncio.Future[Memory] = asyncio.get_running_loop().create_future()

        def listener(change: MirrorChange) -> None:
            if change.upserted and not heard.done():
                heard.set_result(change.upserted[0])

        mirror.on_change(listener)
        stop = asyncio.Event()
        following = asyncio.ensure_future(mirror.follow(0.05, stop=stop))
        try:
            added = (await mnemo.memories.add("Seen while following")).memory
            assert await asyncio.wait_for(heard, 10) == added
        finally:
            stop.set()
            await asyncio.wait_for(following, 5)


async def test_a_refusal_that_asking_again_cannot_change_ends_following(
    connect: Connect, member: Member, kind: str
) -> None:
    stranger = MAIN["outsider"]["id"]
    mirror = connect(member.token).memories.mirror(user=stranger)
    errors: list[Exception] = []
    try:
        await mirror.follow(0.01, on_error=errors.append)
        raise AssertionError("following went on after a final refusal")
    except MnemoError as error:
        assert (error.status, error.message) == (400, "user is not a member of this organization")
    assert errors == []
