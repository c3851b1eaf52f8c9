"""Budgets spent on the rate-limited server shortly before a clock minute ends, and kept spent.

The server's limit is a sliding window over the clock's minutes (src/platform/rate-limit.ts).
A credential that spent its budget with nothing in the minute before is told to wait until that
minute ends: up to a minute. Spent a few seconds before the end, the wait is those seconds; and
for the whole next minute, the spent minute weighs on the window as it fades, so that a refusal
there frees a request within 60/limit seconds. Spending again once a minute keeps it so. Waiting
for a minute's end costs up to a minute, so it is done in a thread while the other tests run, and
the tests that need it run last (conftest.py).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import httpx

MINUTE = 60.0
# How long before a minute's end the budgets are first spent: the longest wait a test then sees.
LEAD = 6.0
# Under this, the minute's end is too near: most of the spending could fall after it.
TOO_NEAR = 1.5
# Where in each later minute the budgets are spent again, while no test has taken them.
AGAIN_AT = 30.0


@dataclass(frozen=True)
class Limited:
    url: str
    org_id: str
    tokens: list[str]
    limit: int


class RateWindow:
    def __init__(self, server: Limited) -> None:
        self._server = server
        self._taken = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="rate-window", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def ready(self) -> None:
        """Returns once every token's budget is spent, within this minute or the one before:
        then a refusal's wait is seconds."""
        self._taken.set()
        self._thread.join()
        if self._error is not None:
            raise self._error

    def spend_again(self) -> None:
        """Spends the budgets before the next minute's end: for a spending that missed its
        minute (a machine so loaded that its requests straddled the minute's end)."""
        self._spend_before_minute_end()

    def _run(self) -> None:
        try:
            self._spend_before_minute_end()
            while not self._taken.wait(MINUTE + AGAIN_AT - time.time() % MINUTE):
                self._spend()
        except BaseException as error:  # Raised in the test that needs it, by ready().
            self._error = error

    def _spend_before_minute_end(self) -> None:
        left = MINUTE - time.time() % MINUTE
        if left < TOO_NEAR:
            time.sleep(left + 0.05)
            left = MINUTE - time.time() % MINUTE
        if left > LEAD:
            time.sleep(left - LEAD)
        self._spend()

    def _spend(self) -> None:
        headers = {"x-organization-id": self._server.org_id}
        with httpx.Client(base_url=self._server.url, headers=headers) as http:
            for token in self._server.tokens:
                for _ in range(2 * self._server.limit + 5):
                    credential = {"authorization": f"Bearer {token}"}
                    answer = http.get("/api/v1/memory", headers=credential)
                    if answer.status_code == 429:
                        break
                else:
                    raise AssertionError("the rate-limited server never answered 429")
