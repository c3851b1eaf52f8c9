"""Every memory operation against the real server, and its answer, exactly; acting for another
member and for a project's pool. Each test runs with the sync and the async client."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from conftest import MAIN, Connect, Member, take_member
from mnemo import (
    FoldedMemory,
    ImportItem,
    ImportItemResult,
    ImportResult,
    ListResult,
    Memory,
    MnemoError,
)

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def created(memory: Memory | FoldedMemory | None) -> Memory:
    assert isinstance(memory, Memory), memory
    return memory


def recent(at: datetime) -> bool:
    """An aware UTC timestamp of the last minute (the server's clock is this machine's)."""
    return at.utcoffset() == timedelta(0) and abs(datetime.now(timezone.utc) - at) < timedelta(
        minutes=1
    )


async def test_add_get_update_list_search_delete(connect: Connect, member: Member) -> None:
    mnemo = connect(member.token)
    first = await mnemo.memories.list()
    assert first == ListResult(memories=[], cursor=first.cursor, deleted=None)
    assert first.cursor != ""

    added = await mnemo.memories.add("Prefers tea over coffee", category="preference")
    assert added.created is True
    memory = created(added.memory)
    assert UUID.fullmatch(memory.id)
    assert recent(memory.created_at)
    assert memory == Memory(
        id=memory.id,
        content="Prefers tea over coffee",
        category="preference",
        created_at=memory.created_at,
        updated_at=memory.created_at,
    )
    assert await mnemo.memories.get(memory.id) == memory

    updated = await mnemo.memories.update(memory.id, content="Prefers green tea", category=None)
    assert updated == Memory(
        memory.id, "Prefers green tea", None, memory.created_at, updated.updated_at
    )
    assert updated.updated_at > memory.updated_at
    # What is not given is left as it is: the content here, the category below.
    recategorized = await mnemo.memories.update(memory.id, category="goal")
    assert (recategorized.content, recategorized.category) == ("Prefers green tea", "goal")
    reworded = await mnemo.memories.update(
        memory.id, content="Prefers white tea", base_updated_at=recategorized.updated_at
    )
    assert (reworded.content, reworded.category) == ("Prefers white tea", "goal")
    assert reworded.updated_at > recategorized.updated_at

    everything = await mnemo.memories.list()
    assert everything.memories == [reworded]
    assert everything.deleted is None

    other = created((await mnemo.memories.add("Blocked on TICKET-4521", category="goal")).memory)
    found = await mnemo.memories.search("ticket 4521", limit=5)
    assert found.mode == "lexical"
    assert found.memories == [other]
    assert isinstance(found.hits[0].score, float) and found.hits[0].score > 0
    assert (await mnemo.memories.search("ticket", category="preference")).hits == []
    assert (await mnemo.memories.search("tea", category="goal")).memories == [reworded]

    await mnemo.memories.delete(memory.id)
    # Deleting it again is no error.
    await mnemo.memories.delete(memory.id)

    changed = await mnemo.memories.list(since=everything.cursor)
    assert changed == ListResult(memories=[other], cursor=changed.cursor, deleted=[memory.id])
    assert await mnemo.memories.list(since=changed.cursor) == ListResult(
        memories=[], cursor=changed.cursor, deleted=[]
    )


async def test_an_add_equal_to_a_memory_of_the_store_is_folded(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    added = await mnemo.memories.add("Walks to work")
    assert added.created
    folded = await mnemo.memories.add("  walks to WORK!")
    assert folded.created is False
    assert folded.memory == FoldedMemory(id=added.memory.id, content="Walks to work")
    assert [m.id for m in (await mnemo.memories.list()).memories] == [added.memory.id]


async def test_import_answers_each_item_and_export_streams_the_store(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    # Line and paragraph separators that JSON leaves unescaped: no line end of NDJSON's.
    separators = "Notes\u2028on two lines\x85and a third \u2029 🙂"
    imported = await mnemo.memories.import_(
        [
            ImportItem(
                "Prefers window seats",
                category="preference",
                created_at=datetime(2024, 7, 20, 1, 34, 56, 789000, timezone(timedelta(hours=-7))),
            ),
            "prefers window seats",
            ImportItem("Flies to Lisbon in May", created_at="2999-01-01T00:00:00Z"),
            ImportItem(separators),
        ]
    )
    seats = created(imported.results[0].memory)
    assert seats.created_at == datetime(2024, 7, 20, 8, 34, 56, 789000, timezone.utc)
    assert (seats.content, seats.category) == ("Prefers window seats", "preference")
    notes = created(imported.results[3].memory)
    assert imported == ImportResult(
        results=[
            ImportItemResult("created", seats, None),
            ImportItemResult("folded", seats, None),
            ImportItemResult("invalid", None, "createdAt must not be in the future"),
            ImportItemResult("created", notes, None),
        ],
        created=2,
        folded=1,
        invalid=1,
    )
    assert notes.content == separators

    exported = await mnemo.memories.export()
    assert [memory async for memory in exported] == [seats, notes]
    # Read to its end, it is done: iterating again yields nothing.
    assert [memory async for memory in exported] == []

    later = created((await mnemo.memories.add("Reads on trains")).memory)
    assert (await mnemo.memories.list(since=exported.cursor)).memories == [later]

    # Stopping early ends the stream; the client goes on as before.
    async with await mnemo.memories.export() as again:
        async for memory in again:
            assert memory == seats
            break
    assert len((await mnemo.memories.list()).memories) == 3


async def test_erase_deletes_a_store_or_one_category_and_says_how_many(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    await mnemo.memories.import_(
        [
            ImportItem("Likes jazz", category="preference"),
            ImportItem("Likes rain", category="preference"),
            ImportItem("Runs a marathon in May", category="goal"),
        ]
    )
    assert await mnemo.memories.erase(category="preference") == 2
    assert await mnemo.memories.erase() == 1
    assert await mnemo.memories.erase() == 0


async def test_a_token_function_is_asked_for_each_request(connect: Connect, member: Member) -> None:
    asked: list[int] = []

    def token() -> str:
        asked.append(1)
        return member.token

    mnemo = connect(token)
    await mnemo.memories.list()
    await mnemo.memories.list()
    assert len(asked) == 2


async def test_another_members_store_user_in_the_query_or_the_body(
    connect: Connect, member: Member
) -> None:
    other = take_member()
    mnemo = connect(member.token)
    user = other.id
    added = await mnemo.memories.add("Takes the night train", user=user)
    memory = created(added.memory)

    # Theirs, not mine.
    try:
        await mnemo.memories.get(memory.id)
        raise AssertionError("another member's memory was found in my store")
    except MnemoError as error:
        assert (error.status, error.message) == (404, "memory not found")
    assert await mnemo.memories.get(memory.id, user=user) == memory
    assert (await connect(other.token).memories.list()).memories == [memory]
    assert (await mnemo.memories.list(user=user)).memories == [memory]
    assert (await mnemo.memories.search("train", user=user)).memories == [memory]

    updated = await mnemo.memories.update(memory.id, category="preference", user=user)
    assert updated.category == "preference"
    imported = await mnemo.memories.import_(["Owns a cat"], user=user)
    assert imported.created == 1
    async with await mnemo.memories.export(user=user) as exported:
        contents = sorted([memory.content async for memory in exported])
    assert contents == ["Owns a cat", "Takes the night train"]

    await mnemo.memories.delete(memory.id, user=user)
    assert (await mnemo.memories.list(user=user)).memories == [created(imported.results[0].memory)]
    assert await mnemo.memories.erase(user=user) == 1
    assert (await mnemo.memories.list()).memories == []


async def test_a_projects_pool_project_in_the_query_or_the_body(
    connect: Connect, kind: str
) -> None:
    pool = MAIN["projects"][0 if kind == "sync" else 1]
    project = pool["id"]
    mnemo = connect(pool["editor"]["token"])
    added = await mnemo.memories.add("Ships on Fridays", project=project)
    memory = created(added.memory)
    assert (await mnemo.memories.list(project=project)).memories == [memory]
    assert (await mnemo.memories.list()).memories == []
    assert (await mnemo.memories.search("fridays", project=project)).memories == [memory]
    imported = await mnemo.memories.import_(
        [ImportItem("Freezes the API on Thursdays")], project=project
    )
    async with await mnemo.memories.export(project=project) as exported:
        pooled = [memory async for memory in exported]
    assert sorted(pooled, key=lambda m: m.content) == [created(imported.results[0].memory), memory]
    # A pool memory is changed by its contributor, reached by id as any memory of theirs.
    reworded = await mnemo.memories.update(memory.id, content="Ships on Mondays")
    assert reworded in (await mnemo.memories.list(project=project)).memories
    # Erasing a pool takes owner access, which an editor has not.
    try:
        await mnemo.memories.erase(project=project)
        raise AssertionError("an editor erased a pool")
    except MnemoError as error:
        assert error.status == 403

