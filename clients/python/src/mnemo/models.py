"""The memory API's answers as frozen dataclasses, and their reading from the API's JSON.

The API names fields in camelCase and prints timestamps as ISO strings; here they are snake_case
attributes and aware datetimes, so that the rest of the client and its callers never handle the
wire shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, TypeAlias

Category: TypeAlias = Literal[
    "identity", "preference", "goal", "project", "relationship", "constraint"
]
CATEGORIES: tuple[Category, ...] = (
    "identity",
    "preference",
    "goal",
    "project",
    "relationship",
    "constraint",
)
SearchMode: TypeAlias = Literal["lexical", "hybrid"]
ImportStatus: TypeAlias = Literal["created", "folded", "invalid"]

Json: TypeAlias = Mapping[str, Any]


@dataclass(frozen=True)
class Memory:
    """A memory as every answer prints it; `category` is None when it has none."""

    id: str
    content: str
    category: Category | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class FoldedMemory:
    """The existing memory an add was folded into: the API answers its id and content only."""

    id: str
    content: str


@dataclass(frozen=True)
class AddResult:
    """`created` for a new memory (201); otherwise the add was folded into `memory` (200)."""

    created: bool
    memory: Memory | FoldedMemory


@dataclass(frozen=True)
class ListResult:
    """A list's answer; `deleted` (ids removed since the cursor) only with `since`."""

    memories: list[Memory]
    cursor: str
    deleted: list[str] | None


@dataclass(frozen=True)
class SearchHit:
    """A memory that matched, and how well: higher is better, within one answer only."""

    memory: Memory
    score: float


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode

    @property
    def memories(self) -> list[Memory]:
        """The memories found, best first, without their scores."""
        return [hit.memory for hit in self.hits]


@dataclass(frozen=True)
class ImportItem:
    """One memory of an import. `created_at` (aware, from 1970, not in the future) is kept."""

    content: str
    category: Category | None = None
    created_at: datetime | str | None = None


@dataclass(frozen=True)
class ImportItemResult:
    """`memory` for a created or folded item, `error` for an invalid one."""

    status: ImportStatus
    memory: Memory | None
    error: str | None


@dataclass(frozen=True)
class ImportResult:
    results: list[ImportItemResult]
    created: int
    folded: int
    invalid: int


@dataclass(frozen=True)
class EndUser:
    """A person an app remembers; `id` is what the memory API takes as `user`."""

    id: str
    external_id: str
    name: str | None
    created_at: datetime


@dataclass(frozen=True)
class EndUserMemoryCounts:
    """How many memories are held of an end user: what erasing them deletes."""

    own: int
    pools: int


@dataclass(frozen=True)
class EndUserDetails:
    id: str
    external_id: str
    name: str | None
    created_at: datetime
    memories: EndUserMemoryCounts


@dataclass(frozen=True)
class EndUserRegistration:
    """`created` when this call registered the end user (201), False when it existed (200)."""

    created: bool
    end_user: EndUser


@dataclass(frozen=True)
class EndUserPage:
    """A page of end users, newest first; `cursor` asks for the next, None on the last."""

    end_users: list[EndUser]
    total: int
    cursor: str | None


def parse_time(value: str) -> datetime:
    # Python 3.11 reads the API's `…T09:30:00.000Z` directly, as an aware UTC datetime.
    return datetime.fromisoformat(value)


def format_time(value: datetime | str) -> str:
    """The API's own timestamp form (UTC, milliseconds, `Z`), which `baseUpdatedAt` requires."""
    if isinstance(value, str):
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("a timestamp sent to mnemo must be timezone-aware")
    utc = value.astimezone(timezone.utc)
    return f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond // 1000:03d}Z"


def parse_memory(raw: Json) -> Memory:
    return Memory(
        id=raw["id"],
        content=raw["content"],
        category=raw.get("category"),
        created_at=parse_time(raw["createdAt"]),
        updated_at=parse_time(raw["updatedAt"]),
    )


def parse_memory_answer(raw: Json) -> Memory:
    return parse_memory(raw["memory"])


def parse_list(raw: Json) -> ListResult:
    deleted = raw.get("deleted")
    return ListResult(
        memories=[parse_memory(item) for item in raw["memories"]],
        cursor=raw["cursor"],
        deleted=None if deleted is None else [str(id) for id in deleted],
    )


def parse_add(status: int, raw: Json) -> AddResult:
    memory = raw["memory"]
    if status == 201:
        return AddResult(created=True, memory=parse_memory(memory))
    return AddResult(created=False, memory=FoldedMemory(id=memory["id"], content=memory["content"]))


def parse_search(raw: Json) -> SearchResult:
    return SearchResult(
        hits=[
            SearchHit(memory=parse_memory(hit), score=float(hit["score"]))
            for hit in raw["memories"]
        ],
        mode=raw["mode"],
    )


def parse_import(raw: Json) -> ImportResult:
    return ImportResult(
        results=[
            ImportItemResult(
                status=item["status"],
                memory=parse_memory(item["memory"]) if "memory" in item else None,
                error=item.get("error"),
            )
            for item in raw["results"]
        ],
        created=raw["created"],
        folded=raw["folded"],
        invalid=raw["invalid"],
    )


def parse_end_user(raw: Json) -> EndUser:
    return EndUser(
        id=raw["id"],
        external_id=raw["externalId"],
        name=raw.get("name"),
        created_at=parse_time(raw["createdAt"]),
    )


def parse_end_user_details(raw: Json) -> EndUserDetails:
    counts = raw["memories"]
    return EndUserDetails(
        id=raw["id"],
        external_id=raw["externalId"],
        name=raw.get("name"),
        created_at=parse_time(raw["createdAt"]),
        memories=EndUserMemoryCounts(own=counts["own"], pools=counts["pools"]),
    )


def parse_end_user_page(raw: Json) -> EndUserPage:
    return EndUserPage(
        end_users=[parse_end_user(item) for item in raw["endUsers"]],
        total=raw["total"],
        cursor=raw.get("cursor"),
    )


def import_item_json(item: ImportItem | str) -> dict[str, Any]:
    if isinstance(item, str):
        return {"content": item}
    body: dict[str, Any] = {"content": item.content}
    if item.category is not None:
        body["category"] = item.category
    if item.created_at is not None:
        body["createdAt"] = format_time(item.created_at)
    return body
