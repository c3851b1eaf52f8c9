"""The server-sent events parser on its own (no server): WHATWG's event stream interpretation,
with the stream cut into chunks at every position."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemo.events import ChangeEvent, DeleteEvent, ErrorEvent, SyncEvent, memory_event
from mnemo.sse import ServerSentEvent, ServerSentEventParser

MEMORY = {
    "id": "m1",
    # U+2028, U+2029 and U+0085 inside a JSON string: line ends for str.splitlines, not for SSE.
    "content": "Line\u2028separator\u2029and\u0085next line, caf\u00e9 \U0001f375",
    "category": "preference",
    "createdAt": "2026-01-02T03:04:05.000Z",
    "updatedAt": "2026-01-02T03:04:05.000Z",
}

SAMPLE = (
    ": a comment first\n"
    "retry: 3000\n"
    "id: c1\r\n"
    "event: change\r"
    f"data: {json.dumps(MEMORY, ensure_ascii=False)}\r\n"
    "\r\n"
    ": ping\r"
    "\r"
    "id: c2\n"
    "event:delete\n"
    'data:{"id":"m1"}\n'
    "\n"
    "event: sync\r\n"
    'data: {"cursor":"c2"}\r'
    "\r"
    "id: c3\r"
    "event: unknown\r"
    "data: {}\r"
    "\r"
    "event: message\n"
    "data: first\n"
    "data\n"
    "data:  two spaces\n"
    "\n"
    "id: c4\n"
    "data: never dispatched: the stream ends before its empty line\n"
).encode()

EXPECTED = [
    ServerSentEvent("change", json.dumps(MEMORY, ensure_ascii=False), "c1"),
    ServerSentEvent("delete", '{"id":"m1"}', "c2"),
    # No id of its own: the last one set.
    ServerSentEvent("sync", '{"cursor":"c2"}', "c2"),
    ServerSentEvent("unknown", "{}", "c3"),
    ServerSentEvent("message", "first\n\n two spaces", "c3"),
]


def parse(chunks: list[bytes]) -> list[ServerSentEvent]:
    parser = ServerSentEventParser()
    return [event for chunk in chunks for event in parser.feed(chunk)]


def test_the_sample_in_one_chunk() -> None:
    assert parse([SAMPLE]) == EXPECTED


@pytest.mark.parametrize("at", range(len(SAMPLE) + 1))
def test_the_sample_cut_in_two_anywhere(at: int) -> None:
    assert parse([SAMPLE[:at], SAMPLE[at:]]) == EXPECTED


def test_the_sample_one_byte_at_a_time_and_with_empty_chunks() -> None:
    assert parse([bytes([byte]) for byte in SAMPLE]) == EXPECTED
    assert parse([b"", *(part for byte in SAMPLE for part in (bytes([byte]), b""))]) == EXPECTED


@given(st.lists(st.integers(0, len(SAMPLE)), max_size=12))
def test_the_sample_cut_anywhere_many_times(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(SAMPLE)]
    assert parse([SAMPLE[a:b] for a, b in zip(points, points[1:])]) == EXPECTED


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"])
def test_each_line_end(end: bytes) -> None:
    stream = end.join([b"id: 1", b"event: sync", b"data: a", b"data: b", b"", b""])
    assert parse([stream]) == [ServerSentEvent("sync", "a\nb", "1")]


def test_a_cr_then_an_lf_in_the_next_chunk_is_one_line_end() -> None:
    # Had the LF been a line end of its own, the empty line would dispatch "a" alone.
    assert parse([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [
        ServerSentEvent("message", "a\nb", "")
    ]


def test_cr_cr_is_two_line_ends() -> None:
    assert parse([b"data: a\r\r"]) == [ServerSentEvent("message", "a", "")]


def test_comments_and_events_without_data_dispatch_nothing() -> None:
    assert parse([b": ping\n\n:\n\nevent: sync\n\nid: 7\n\n"]) == []


def test_one_leading_space_is_stripped_and_no_more() -> None:
    assert parse([b"data:  x \ndata:y\ndata\n\n"]) == [ServerSentEvent("message", " x \ny\n", "")]


def test_an_id_holding_nul_is_ignored_and_the_last_id_stays() -> None:
    parser = ServerSentEventParser()
    assert parser.feed(b"id: good\ndata: 1\n\nid: b\x00d\ndata: 2\n\n") == [
        ServerSentEvent("message", "1", "good"),
        ServerSentEvent("message", "2", "good"),
    ]
    assert parser.last_event_id == "good"


def test_an_empty_id_resets_the_last_id() -> None:
    assert parse([b"id: 1\ndata: a\n\nid\ndata: b\n\n"]) == [
        ServerSentEvent("message", "a", "1"),
        ServerSentEvent("message", "b", ""),
    ]


def test_a_field_named_with_a_space_or_unknown_is_ignored() -> None:
    assert parse([b"data : x\nfoo: y\ndata: z\n\n"]) == [ServerSentEvent("message", "z", "")]


def test_a_leading_byte_order_mark_is_skipped_even_cut() -> None:
    stream = b"\xef\xbb\xbfdata: a\n\n"
    for at in range(len(stream) + 1):
        assert parse([stream[:at], stream[at:]]) == [ServerSentEvent("message", "a", "")]


def test_u2028_and_friends_stay_inside_the_data() -> None:
    data = '{"content":"a\u2028b\u2029c\u0085d\x0be\x0cf\x1cg"}'
    assert parse([f"data: {data}\n\n".encode()]) == [ServerSentEvent("message", data, "")]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert parse([b"data: \xff\n\n"]) == [ServerSentEvent("message", "\ufffd", "")]


def test_events_of_the_change_stream_typed() -> None:
    typed = [memory_event(event) for event in parse([SAMPLE])]
    change, delete, sync, unknown, message = typed
    assert isinstance(change, ChangeEvent) and change.cursor == "c1"
    assert change.memory.content == MEMORY["content"]
    assert delete == DeleteEvent("m1", "c2")
    assert sync == SyncEvent("c2")
    assert unknown is None and message is None
    error = ServerSentEvent("error", '{"error":"account is suspended","status":403}', "c9")
    assert memory_event(error) == ErrorEvent("account is suspended", 403, "c9")
