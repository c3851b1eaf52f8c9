"""MnemoError, and how a refused answer is read into one."""

from __future__ import annotations

import json
import math
import time
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from .models import Memory, parse_memory


class MnemoError(Exception):
    """An answer of the API that is not a success, or a token the authorization server refused.

    `message` is the server's own: `{"error"}` on `/api`, or the `error_description` (else
    `error`) of RFC 6749 §5.2 from `/oauth/token`.
    """

    status: int
    message: str
    body: Any
    retry_after: int | None

    def __init__(
        self, status: int, message: str, body: Any = None, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.body = body
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"MnemoError(status={self.status}, message={self.message!r})"

    def __str__(self) -> str:
        return f"{self.status}: {self.message}"

    @property
    def memory(self) -> Memory | None:
        """With a 409 (a `base_updated_at` another write overtook), the memory as it is now."""
        if isinstance(self.body, dict) and isinstance(self.body.get("memory"), dict):
            return parse_memory(self.body["memory"])
        return None


def error_of(response: httpx.Response) -> MnemoError:
    """The MnemoError of a refused answer, whose body has been read."""
    body: Any = response.text
    try:
        body = json.loads(body) if body != "" else None
    except ValueError:
        pass  # Not JSON (a proxy's page, say): the text is the body.
    return MnemoError(
        response.status_code,
        _message_of(body) or f"HTTP {response.status_code}",
        body,
        retry_after_of(response.headers.get("retry-after")),
    )


def _message_of(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    for field in ("error_description", "error"):
        if isinstance(body.get(field), str):
            return str(body[field])
    return None


def retry_after_of(value: str | None, now: float | None = None) -> int | None:
    """`Retry-After` (RFC 9110 §10.2.3), delay-seconds or an HTTP-date, as seconds from now."""
    if value is None or value.strip() == "":
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return int(value)
    try:
        at = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at.tzinfo is None:
        return None  # An HTTP-date is GMT by definition; one without a zone is no HTTP-date.
    seconds = at.timestamp() - (time.time() if now is None else now)
    return max(0, math.ceil(seconds))
