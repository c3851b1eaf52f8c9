"""Server-sent events, parsed from the bytes of a `text/event-stream` body as they arrive.

The rules are WHATWG HTML's "event stream interpretation" (§9.2.6), those a client of the
change stream needs: a leading byte order mark ignored; lines ended by CRLF, LF or CR; a line
starting with `:` a comment; `field: value` with one leading space of the value stripped (a line
without a colon is a field with an empty value); `data` lines joined with `\\n`; `event` naming
the event (`message` without one); `id` kept as the last event id (until another), unless it
contains NUL; `retry` and unknown fields ignored; an empty line dispatching the event, unless no
data came; an event the stream ends in the middle of dropped.

Lines are split on bytes, never on decoded text: `str.splitlines` and the line readers of httpx
also end a line at U+2028, U+2029 or U+0085, which JSON leaves unescaped inside its strings. In
UTF-8 a CR or LF byte is never part of another character, so splitting first and decoding each
line after is exact. A chunk may end anywhere, even between the CR and the LF of one line end.
"""

from __future__ import annotations

from dataclasses import dataclass

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event: its type, its data (lines joined with `\\n`), and the last event id
    the stream set (empty before any)."""

    event: str
    data: str
    id: str


class ServerSentEventParser:
    """Takes a stream's bytes chunk by chunk (`feed`) and answers the events each completes."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        # The last chunk ended in CR: an LF starting the next one ends nothing more.
        self._after_cr = False
        # Until the first 3 bytes are seen, a byte order mark may still be coming.
        self._started = False
        self._event = ""
        self._data: list[str] = []
        self._last_id = ""

    @property
    def last_event_id(self) -> str:
        return self._last_id

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events that `chunk` completes, in order."""
        buffer = self._buffer
        buffer += chunk
        if not self._started:
            if len(buffer) < len(_BOM) and _BOM.startswith(bytes(buffer)):
                return []
            if buffer.startswith(_BOM):
                del buffer[: len(_BOM)]
            self._started = True
        events: list[ServerSentEvent] = []
        start = 0
        if self._after_cr and buffer:
            start = 1 if buffer[0] == 0x0A else 0
            self._after_cr = False
        length = len(buffer)
        while start < length:
            cr = buffer.find(b"\r", start)
            lf = buffer.find(b"\n", start)
            if cr == -1 and lf == -1:
                break
            if cr == -1 or (lf != -1 and lf < cr):
                end, next_start = lf, lf + 1
            elif cr + 1 < length:
                end = cr
                next_start = cr + 2 if buffer[cr + 1] == 0x0A else cr + 1
            else:
                # A CR that ends the chunk: the line ends here, and an LF next is part of it.
                end, next_start = cr, cr + 1
                self._after_cr = True
            event = self._line(bytes(buffer[start:end]).decode("utf-8", "replace"))
            if event is not None:
                events.append(event)
            start = next_start
        del buffer[:start]
        return events

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        elif field == "id":
            if "\0" not in value:
                self._last_id = value
        # `retry` (a reconnection delay) and any other field: ignored.
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return ServerSentEvent(event or "message", "\n".join(data), self._last_id)
