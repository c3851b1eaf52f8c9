"""End users, by an app with the admin role: registered (idempotently) under the app's own ids,
read, listed a page at a time, erased; and acted for with the memory API's `user`."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

from conftest import MAIN, Connect
from mnemo import (
    ClientCredentials,
    EndUser,
    EndUserDetails,
    EndUserMemoryCounts,
    EndUserPage,
    EndUserRegistration,
    Memory,
    MnemoError,
)

ADMIN_APP = ClientCredentials(
    MAIN["adminApp"]["id"], MAIN["adminApp"]["secret"], scope="memory:read memory:write admin"
)


async def test_register_get_list_and_erase(connect: Connect) -> None:
    mnemo = connect(ADMIN_APP)
    # Ids of this run alone, with a `/`, a space and a non-ASCII letter, which travel encoded.
    prefix = f"py-{uuid.uuid4().hex[:8]}"
    jane_id, omar_id = f"{prefix}/jane doe", f"{prefix}-ömar"

    first = await mnemo.end_users.register(jane_id, name="Jane Doe")
    jane = first.end_user
    assert first == EndUserRegistration(
        created=True, end_user=EndUser(jane.id, jane_id, "Jane Doe", jane.created_at)
    )
    assert abs(datetime.now(timezone.utc) - jane.created_at) < timedelta(minutes=1)
    # Again: the same one, its name kept when none is sent, replaced when one is.
    assert await mnemo.end_users.register(jane_id) == EndUserRegistration(False, jane)
    renamed = await mnemo.end_users.register(jane_id, name="Jane Roe")
    jane_roe = EndUser(jane.id, jane_id, "Jane Roe", jane.created_at)
    assert renamed == EndUserRegistration(False, jane_roe)
    omar = (await mnemo.end_users.register(omar_id)).end_user
    assert omar.name is None

    added = await mnemo.memories.add("Allergic to peanuts", category="constraint", user=jane.id)
    assert isinstance(added.memory, Memory)
    assert (await mnemo.memories.list(user=jane.id)).memories == [added.memory]
    assert await mnemo.end_users.get(jane_id) == EndUserDetails(
        jane.id, jane_id, "Jane Roe", jane.created_at, EndUserMemoryCounts(own=1, pools=0)
    )

    page = await mnemo.end_users.list(q=prefix)
    assert page == EndUserPage(
        end_users=[omar, jane_roe],
        total=2,
        cursor=None,
    )
    one = await mnemo.end_users.list(q=prefix, limit=1)
    assert (one.end_users, one.total) == ([omar], 2)
    assert one.cursor is not None
    rest = await mnemo.end_users.list(q=prefix, limit=1, cursor=one.cursor)
    assert [end_user.id for end_user in rest.end_users] == [jane.id]
    assert rest.cursor is None

    await mnemo.end_users.erase(jane_id)
    # Again, and for an id never known: no error.
    await mnemo.end_users.erase(jane_id)
    await mnemo.end_users.erase(f"{prefix}-never")
    try:
        await mnemo.end_users.get(jane_id)
        raise AssertionError("an erased end user was found")
    except MnemoError as error:
        assert (error.status, error.message) == (404, "end user not found")
    try:
        await mnemo.memories.list(user=jane.id)
        raise AssertionError("an erased end user's store was read")
    except MnemoError as error:
        assert (error.status, error.message) == (400, "user is not a member of this organization")
    assert (await mnemo.end_users.list(q=prefix)).end_users == [omar]
