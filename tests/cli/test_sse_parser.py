"""The SSE parser: frames, ids, multi-line data, comments, and chunks cut anywhere."""

from __future__ import annotations

from runyard.cli.chat.sse import SSEFrame, SSEParser

STREAM = (
    ": ping\n\n"
    'id: 1\ndata: {"a": 1}\n\n'
    "id: 2\ndata: first line\ndata: second line\n\n"
    ": ping\n"
    "data: no id of its own\n\n"
    "event: run-sync\nid: 7\ndata: {}\n\n"
)
EXPECTED = [
    SSEFrame(data='{"a": 1}', id="1"),
    SSEFrame(data="first line\nsecond line", id="2"),
    SSEFrame(data="no id of its own", id="2"),
    SSEFrame(data="{}", event="run-sync", id="7"),
]


def test_frames_carry_their_id_and_joined_data_lines() -> None:
    parser = SSEParser()
    assert parser.feed(STREAM) == EXPECTED
    assert parser.last_event_id == "7"


def test_every_split_of_the_stream_gives_the_same_frames() -> None:
    raw = STREAM.encode()
    for cut in range(len(raw) + 1):
        parser = SSEParser()
        frames = parser.feed(raw[:cut]) + parser.feed(raw[cut:]) + parser.close()
        assert frames == EXPECTED, cut


def test_byte_by_byte_feeding_keeps_multibyte_characters_whole() -> None:
    parser = SSEParser()
    frames: list[SSEFrame] = []
    for byte in "id: 3\ndata: héllo → wörld 🤖\n\n".encode():
        frames += parser.feed(bytes([byte]))
    assert frames == [SSEFrame(data="héllo → wörld 🤖", id="3")]


def test_cr_and_crlf_line_endings_even_split_between_chunks() -> None:
    parser = SSEParser()
    frames = parser.feed("id: 1\r\ndata: a\r") + parser.feed("\n\r\n") + parser.feed("data: b\r\r")
    frames += parser.feed("data: c\n\n")
    assert frames == [
        SSEFrame(data="a", id="1"),
        SSEFrame(data="b", id="1"),
        SSEFrame(data="c", id="1"),
    ]


def test_a_trailing_cr_ends_its_line_at_the_end_of_the_stream() -> None:
    parser = SSEParser()
    assert parser.feed("data: last\r\r") == []
    assert parser.close() == [SSEFrame(data="last")]


def test_comments_only_and_frames_without_data_dispatch_nothing() -> None:
    parser = SSEParser()
    assert parser.feed(": ping\n\n: ping\n\nid: 5\n\nevent: x\n\n") == []
    assert parser.last_event_id == "5"


def test_an_unterminated_frame_at_the_end_is_dropped() -> None:
    parser = SSEParser()
    assert parser.feed("id: 1\ndata: half") == []
    assert parser.close() == []


def test_field_syntax_follows_the_spec() -> None:
    parser = SSEParser()
    frames = parser.feed(
        "\ufeffdata:no space\n\n"
        "data:  two spaces keep one\n\n"
        "data\n\n"
        "retry: 1500\nunknown: field\ndata: x\n\n"
        "id: bad\x00id\ndata: y\n\n"
    )
    assert [frame.data for frame in frames] == ["no space", " two spaces keep one", "", "x", "y"]
    assert parser.retry_ms == 1500
    assert frames[-1].id is None
