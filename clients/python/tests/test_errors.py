"""The API's refusals as MnemoError, with their status and the API's own message."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable
from typing import Any

from conftest import MAIN, Connect, Member
from mnemo import Memory, MnemoError


async def refusal(call: Awaitable[Any]) -> MnemoError:
    try:
        await call
    except MnemoError as error:
        return error
    raise AssertionError("the call succeeded")


async def test_400_a_user_who_is_no_member_project_with_user_a_change_of_nothing(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    stranger = await refusal(mnemo.memories.list(user=str(uuid.uuid4())))
    assert (stranger.status, stranger.message) == (400, "user is not a member of this organization")
    assert stranger.body == {"error": "user is not a member of this organization"}
    assert stranger.retry_after is None
    assert str(stranger) == "400: user is not a member of this organization"

    project = MAIN["projects"][2]["id"]
    both = await refusal(mnemo.memories.add("x", user=member.id, project=project))
    assert (both.status, both.message) == (400, "project cannot be combined with user")

    added = await mnemo.memories.add("Cycles to work")
    nothing = await refusal(mnemo.memories.update(added.memory.id))
    assert (nothing.status, nothing.message) == (
        400,
        "at least one of content or category is required",
    )
    blank = await refusal(mnemo.memories.search("   "))
    assert (blank.status, blank.message) == (400, "q is required")
    too_many = await refusal(mnemo.memories.search("cycles", limit=101))
    assert (too_many.status, too_many.message) == (400, "limit must be an integer from 1 to 100")


async def test_401_a_refused_credential(connect: Connect) -> None:
    error = await refusal(connect("not-a-token").memories.list())
    assert (error.status, error.message) == (401, "malformed credential: not a signed JWT")


async def test_403_a_caller_of_another_organization_and_a_member_managing_end_users(
    connect: Connect, member: Member
) -> None:
    outsider = await refusal(connect(MAIN["outsider"]["token"]).memories.list())
    assert (outsider.status, outsider.message) == (403, "not a member of this organization")
    managing = await refusal(connect(member.token).end_users.register("customer-1"))
    assert (managing.status, managing.message) == (
        403,
        "only owners and admins can register end users",
    )


async def test_404_an_unknown_memory(connect: Connect, member: Member) -> None:
    error = await refusal(connect(member.token).memories.get(str(uuid.uuid4())))
    assert (error.status, error.message) == (404, "memory not found")
    assert error.memory is None


async def test_409_a_change_since_base_updated_at_carries_the_memory_as_it_is_now(
    connect: Connect, member: Member
) -> None:
    mnemo = connect(member.token)
    added = await mnemo.memories.add("Learns the cello")
    assert isinstance(added.memory, Memory)
    now = await mnemo.memories.update(added.memory.id, content="Learns the viola")
    conflict = await refusal(
        mnemo.memories.update(
            added.memory.id,
            content="Learns the double bass",
            base_updated_at=added.memory.updated_at,
        )
    )
    assert (conflict.status, conflict.message) == (
        409,
        "the memory was changed by another writer since baseUpdatedAt",
    )
    assert conflict.memory == now
    assert (await mnemo.memories.get(added.memory.id)).content == "Learns the viola"


async def test_410_a_cursor_older_than_the_kept_deletions(connect: Connect) -> None:
    stale = MAIN["stale"]
    error = await refusal(connect(stale["token"]).memories.list(since=stale["cursor"]))
    assert (error.status, error.message) == (
        410,
        "cursor can no longer be served: pull the full list again without since",
    )


async def test_400_a_cursor_of_another_store(connect: Connect, member: Member) -> None:
    stale = MAIN["stale"]
    error = await refusal(connect(member.token).memories.list(since=stale["cursor"]))
    assert (error.status, error.message) == (400, "invalid cursor")
