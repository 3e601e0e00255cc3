"""The hooks' HTTP/2 and HPACK core (``graphmem.agents.http2``, pure): RFC 7541's own examples,
an independent encoder (``hpack``, the library ``h2`` uses) for every representation, and one
unary call against a scripted server — settings, pings, flow control, padding, continuation,
trailers-only errors, resets."""

from __future__ import annotations

import random

import hpack
import pytest
from graphmem.agents import http2
from graphmem.agents.http2 import (
    CONTINUATION,
    DATA,
    END_HEADERS,
    END_STREAM,
    GOAWAY,
    HEADERS,
    PADDED,
    PING,
    RST_STREAM,
    SETTINGS,
    WINDOW_UPDATE,
    CallError,
    HeaderDecoder,
    ProtocolError,
    UnaryCall,
    frame,
)
from hpack.huffman_constants import REQUEST_CODES, REQUEST_CODES_LENGTH


def h(pairs: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(k.encode(), v.encode()) for k, v in pairs]


def test_the_huffman_code_is_rfc_7541s() -> None:
    assert list(http2.HUFFMAN_LENGTHS) == list(REQUEST_CODES_LENGTH)
    for symbol, code in enumerate(REQUEST_CODES[:256]):  # each code alone, padded with ones
        length = REQUEST_CODES_LENGTH[symbol]
        pad = -length % 8
        raw = ((code << pad) | ((1 << pad) - 1)).to_bytes((length + pad) // 8, "big")
        assert http2.decode_huffman(raw) == bytes([symbol])


def test_bad_huffman_padding_and_eos_are_refused() -> None:
    with pytest.raises(ProtocolError):
        http2.decode_huffman(b"\x00")  # '0' then three zero bits: padding must be ones
    with pytest.raises(ProtocolError):
        http2.decode_huffman(b"\xff\xff\xff\xff")  # EOS (30 ones)
    with pytest.raises(ProtocolError):
        http2.decode_huffman(b"\x1f\xff")  # '0' (00000) then 11 ones: more than 7 bits of padding


@pytest.mark.parametrize(("value", "prefix", "wire"), [(10, 5, "0a"), (1337, 5, "1f9a0a"), (42, 8, "2a")])
def test_integers_as_rfc_7541_c1(value: int, prefix: int, wire: str) -> None:
    assert http2.encode_integer(value, prefix).hex() == wire
    assert http2.decode_integer(bytes.fromhex(wire), 0, prefix) == (value, len(wire) // 2)


def test_rfc_7541_c4_requests_with_huffman_share_one_table() -> None:
    d = HeaderDecoder()
    authority = [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")]
    assert d.decode(bytes.fromhex("828684418cf1e3c2e5f23a6ba0ab90f4ff")) == h(authority)
    assert d.decode(bytes.fromhex("828684be5886a8eb10649cbf")) == h([*authority, ("cache-control", "no-cache")])
    third = bytes.fromhex("828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf")
    assert d.decode(third) == h(
        [(":method", "GET"), (":scheme", "https"), (":path", "/index.html"), (":authority", "www.example.com"),
         ("custom-key", "custom-value")]
    )  # fmt: skip
    assert d.used == 164


def test_rfc_7541_c6_responses_evict_from_a_small_table() -> None:
    d = HeaderDecoder(256)
    first = (
        "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae8"
        "2ae43d3"
    )
    assert d.decode(bytes.fromhex(first))[0] == (b":status", b"302")
    assert d.decode(bytes.fromhex("4883640effc1c0bf")) == h(
        [(":status", "307"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
         ("location", "https://www.example.com")]
    )  # fmt: skip
    third = (
        "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af2708"
        "7f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007"
    )
    cookie = b"foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
    assert d.decode(bytes.fromhex(third))[-1] == (b"set-cookie", cookie)
    assert d.used == 215
    assert len(d.table) == 3


def test_any_block_an_independent_encoder_writes_decodes_the_same() -> None:
    rng = random.Random(7)
    words = ["grpc-status", "grpc-message", "content-type", "application/grpc", "x-a", ":status", "200", "é ü %"]
    encoder, decoder = hpack.Encoder(), HeaderDecoder()
    encoder.header_table_size = 512
    for _ in range(300):
        headers = [(rng.choice(words), rng.choice(words) + str(rng.randrange(50))) for _ in range(rng.randrange(1, 6))]
        sensitive = rng.random() < 0.3
        block = encoder.encode(
            [hpack.NeverIndexedHeaderTuple(k, v) if sensitive else (k, v) for k, v in headers],
            huffman=rng.random() < 0.5,
        )
        assert decoder.decode(block) == h(headers)


def _server_headers(encoder: hpack.Encoder, pairs: list[tuple[str, str]]) -> bytes:
    return bytes(encoder.encode(pairs, huffman=True))


def _call(message: bytes = b"hello") -> tuple[UnaryCall, bytes]:
    call = UnaryCall("/s/M", message, h([(":method", "POST"), (":path", "/s/M")]))
    return call, call.start()


def _frames(data: bytes) -> list[tuple[int, int, int, bytes]]:
    out = []
    while data:
        length = int.from_bytes(data[:3], "big")
        out.append((data[3], data[4], int.from_bytes(data[5:9], "big"), data[9 : 9 + length]))
        data = data[9 + length :]
    return out


def test_a_call_sends_the_preface_headers_and_message_then_reads_a_full_answer() -> None:
    call, first = _call()
    assert first.startswith(http2.PREFACE)
    sent = _frames(first[len(http2.PREFACE) :])
    assert [f[0] for f in sent] == [SETTINGS, WINDOW_UPDATE, HEADERS, DATA]
    assert HeaderDecoder().decode(sent[2][3]) == h([(":method", "POST"), (":path", "/s/M")])
    assert sent[3][1] == END_STREAM
    assert sent[3][3] == b"\x00\x00\x00\x00\x05hello"
    enc = hpack.Encoder()
    trailers = _server_headers(enc, [("grpc-status", "0"), ("grpc-message", "")])
    response = _server_headers(enc, [(":status", "200"), ("content-type", "application/grpc")])
    padded = bytes([3]) + b"\x00\x00\x00\x00\x02ok" + b"\x00" * 3
    server = (
        frame(SETTINGS, 0, 0, (5).to_bytes(2, "big") + (32768).to_bytes(4, "big"))
        + frame(PING, 0, 0, b"12345678")
        + frame(HEADERS, END_HEADERS, 1, response)
        + frame(DATA, PADDED, 1, padded)
        + frame(HEADERS, END_STREAM, 1, trailers[:3])
        + frame(CONTINUATION, END_HEADERS, 1, trailers[3:])
    )
    answer = b""
    for i in range(0, len(server), 7):  # in pieces, as a socket may deliver it
        answer += call.receive(server[i : i + 7])
    kinds = [(f[0], f[1], f[3]) for f in _frames(answer)]
    assert (SETTINGS, 1, b"") in kinds
    assert (PING, 1, b"12345678") in kinds
    assert call.done
    assert call.message() == b"ok"


def test_a_message_larger_than_the_window_waits_for_the_servers_grants() -> None:
    body = bytes(range(256)) * 400  # 102,400 bytes
    call, first = _call(body)
    sent = sum(len(f[3]) for f in _frames(first[len(http2.PREFACE) :]) if f[0] == DATA)
    assert sent == 65535
    more = call.receive(frame(WINDOW_UPDATE, 0, 0, (40000).to_bytes(4, "big")))
    assert more == b""  # the stream's own window is still spent
    more = call.receive(frame(WINDOW_UPDATE, 0, 1, (40000).to_bytes(4, "big")))
    data = [f for f in _frames(more) if f[0] == DATA]
    assert sum(len(f[3]) for f in data) == len(body) + 5 - 65535
    assert data[-1][1] & END_STREAM
    assert all(len(f[3]) <= http2.FRAME_SIZE for f in data)


def test_a_smaller_initial_window_from_the_server_holds_the_message_back() -> None:
    call, _first = _call(b"x" * 20000)
    assert call.sent == 20005
    call2, _ = _call(b"x" * 70000)
    ack = call2.receive(frame(SETTINGS, 0, 0, (4).to_bytes(2, "big") + (1000).to_bytes(4, "big")))
    assert _frames(ack) == [(SETTINGS, 1, 0, b"")]  # nothing more: the stream's window went below zero
    assert call2.stream_window == 1000 - 65535


def test_a_trailers_only_error_carries_the_status_and_its_decoded_message() -> None:
    call, _ = _call()
    status = [(":status", "200"), ("grpc-status", "3"), ("grpc-message", "files%20is%20required")]
    block = _server_headers(hpack.Encoder(), status)
    call.receive(frame(HEADERS, END_HEADERS | END_STREAM, 1, block))
    assert call.done
    with pytest.raises(CallError) as e:
        call.message()
    assert e.value.status == 3
    assert str(e.value) == "files is required"


@pytest.mark.parametrize(
    "server",
    [
        frame(RST_STREAM, 0, 1, (8).to_bytes(4, "big")),
        frame(GOAWAY, 0, 0, (0).to_bytes(4, "big") + (2).to_bytes(4, "big")),
        frame(CONTINUATION, END_HEADERS, 1, b""),
        frame(HEADERS, 0, 1, b"\x82") + frame(DATA, 0, 1, b"x"),
        frame(HEADERS, END_HEADERS, 1, b"\xff\x00"),  # an index past both tables
    ],
)
def test_protocol_failures_raise(server: bytes) -> None:
    call, _ = _call()
    with pytest.raises(ProtocolError):
        call.receive(server)


def test_a_stream_ended_without_status_or_message_is_refused() -> None:
    call, _ = _call()
    call.receive(frame(HEADERS, END_HEADERS, 1, _server_headers(hpack.Encoder(), [(":status", "200")])))
    call.receive(frame(DATA, END_STREAM, 1, b""))
    assert call.done
    with pytest.raises(ProtocolError):
        call.message()
