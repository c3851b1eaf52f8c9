"""A 429 with Retry-After, on a server that allows a few requests a minute: raised at once when
no retry is allowed or the wait is longer than allowed, else waited out and sent again. The
budgets are spent shortly before a minute's end (tests/rate_window.py), so waits are seconds."""

from __future__ import annotations

import time

import pytest

from conftest import SERVERS, Connect, Seen, rate_window
from mnemo import AsyncMnemo, MnemoError, Retry

pytestmark = pytest.mark.rate_window

LIMITED = SERVERS["limited"]
# The longest wait a refusal may announce here: the lead of the spending, rounded up.
LONGEST_WAIT = 8


async def refused_at_once(mnemo: AsyncMnemo) -> MnemoError:
    """Calls until the server refuses; the refusal is raised without waiting. A refusal whose
    wait is a minute's rest says the budgets missed their minute: they are spent once more."""
    for spending in range(2):
        for _ in range(2 * LIMITED["limit"] + 5):
            started = time.monotonic()
            try:
                await mnemo.memories.list()
            except MnemoError as error:
                assert time.monotonic() - started < 1, "a refusal was waited out"
                if spending == 0 and (error.retry_after or 0) > LONGEST_WAIT:
                    rate_window().spend_again()
                    break
                return error
        else:
            raise AssertionError("the server never refused")
    raise AssertionError("the budgets were spent twice and still missed their minute")


async def test_a_429_is_raised_or_waited_out_as_retry_after_says(
    connect: Connect, kind: str
) -> None:
    rate_window().ready()
    token = LIMITED["members"][0 if kind == "sync" else 1]["token"]

    for retry in (Retry(max_retries=0), Retry(max_retries=3, max_wait_seconds=0)):
        error = await refused_at_once(connect(token, server="limited", retry=retry))
        assert error.status == 429
        assert error.retry_after is not None and 1 <= error.retry_after <= LONGEST_WAIT
        assert error.message == f"rate limit exceeded: retry in {error.retry_after} s"
        assert error.body == {"error": error.message}

    seen = Seen()
    mnemo = connect(token, server="limited", retry=Retry(max_retries=5), seen=seen)
    # A request may have been freed since the refusal: then this add takes it, and the next waits.
    for attempt in range(3):
        seen.statuses.clear()
        seen.retry_afters.clear()
        started = time.monotonic()
        added = await mnemo.memories.add(f"Waited its turn ({kind}, {attempt})")
        if seen.statuses[0] == 429:
            break
    waited = time.monotonic() - started
    assert added.created
    assert seen.statuses == [429] * (len(seen.statuses) - 1) + [201]
    assert 2 <= len(seen.statuses) <= 6
    announced = [int(value) for value in seen.retry_afters[:-1] if value is not None]
    assert len(announced) == len(seen.statuses) - 1
    assert waited >= sum(announced)
