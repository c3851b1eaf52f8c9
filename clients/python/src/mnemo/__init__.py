"""A client for mnemo's memory API: `Mnemo` (sync) and `AsyncMnemo` (asyncio)."""

from .auth import AsyncAuth, Auth, ClientCredentials
from .client import AsyncMnemo, Mnemo
from .end_users import AsyncEndUsers, EndUsers
from .errors import MnemoError
from .events import (
    AsyncEventStream,
    ChangeEvent,
    DeleteEvent,
    ErrorEvent,
    EventStream,
    MemoryEvent,
    SyncEvent,
)
from .export import AsyncMemoryExport, MemoryExport
from .memories import UNSET, AsyncMemories, Memories, NotGiven
from .mirror import (
    AsyncMirror,
    AsyncMirrorStorage,
    InMemoryStorage,
    Mirror,
    MirrorChange,
    MirrorStorage,
)
from .models import (
    CATEGORIES,
    AddResult,
    Category,
    EndUser,
    EndUserDetails,
    EndUserMemoryCounts,
    EndUserPage,
    EndUserRegistration,
    FoldedMemory,
    ImportItem,
    ImportItemResult,
    ImportResult,
    ListResult,
    Memory,
    SearchHit,
    SearchResult,
)
from .transport import Retry

__version__ = "0.1.0"

__all__ = [
    "CATEGORIES",
    "UNSET",
    "AddResult",
    "AsyncAuth",
    "AsyncEndUsers",
    "AsyncEventStream",
    "AsyncMemories",
    "AsyncMemoryExport",
    "AsyncMirror",
    "AsyncMirrorStorage",
    "AsyncMnemo",
    "Auth",
    "Category",
    "ChangeEvent",
    "ClientCredentials",
    "DeleteEvent",
    "EndUser",
    "EndUserDetails",
    "EndUserMemoryCounts",
    "EndUserPage",
    "EndUserRegistration",
    "EndUsers",
    "ErrorEvent",
    "EventStream",
    "FoldedMemory",
    "ImportItem",
    "ImportItemResult",
    "ImportResult",
    "InMemoryStorage",
    "ListResult",
    "Memories",
    "Memory",
    "MemoryEvent",
    "MemoryExport",
    "Mirror",
    "MirrorChange",
    "MirrorStorage",
    "Mnemo",
    "MnemoError",
    "NotGiven",
    "Retry",
    "SearchHit",
    "SearchResult",
    "SyncEvent",
]
