"""PURE: one gRPC unary call as HTTP/2 bytes in and out (no socket: ``h2call`` is the shell).

A hook is a new process on every edit; the ``h2`` library it used cost it ~95 M instructions
(~22 ms of CPU) to import (``logging``, ``typing``, its event classes), a quarter of the
hook's whole start. A unary call needs a small part of HTTP/2 (RFC 9113) and of HPACK (RFC
7541): the client's frames are a preface, ``SETTINGS``, a ``WINDOW_UPDATE``, one ``HEADERS``
block of literals and the message's ``DATA``; what comes back is decoded in full — every
frame type is parsed or skipped as the RFC says, every HPACK representation (the static and
dynamic tables, Huffman-coded strings) is decoded, so any conforming server is understood.

:class:`UnaryCall` is the state machine: ``start()`` gives the bytes to send first,
``receive(data)`` takes what the server sent and returns what to send back (acknowledgements,
the rest of a request the server's flow control held back); ``done`` once the stream ended,
then :meth:`UnaryCall.message`. Every protocol failure raises :class:`ProtocolError`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CallError",
    "HeaderDecoder",
    "ProtocolError",
    "UnaryCall",
    "decode_huffman",
    "decode_integer",
    "encode_headers",
    "encode_integer",
    "frame",
]

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
SETTINGS_HEADER_TABLE_SIZE, SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_FRAME_SIZE = 1, 2, 4, 5
#: The largest window HTTP/2 allows; the client grants it at once, so it never acknowledges data.
MAX_WINDOW = 2**31 - 1
DEFAULT_WINDOW = 65535
#: The frame size every peer accepts (a larger one only after its SETTINGS said so).
FRAME_SIZE = 16384
#: The largest response accepted (a hook's answer is a few kilobytes).
MAX_RESPONSE = 8 * 1024 * 1024
#: The largest header block accepted.
MAX_HEADER_BLOCK = 256 * 1024


class ProtocolError(Exception):
    """The server's bytes break HTTP/2 or HPACK, or the stream was reset or refused."""


# RFC 7541 Appendix A.
STATIC_TABLE: tuple[tuple[bytes, bytes], ...] = tuple(
    (name.encode("ascii"), value.encode("ascii"))
    for name, value in (
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
        (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
        (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
        ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""),
        ("cache-control", ""), ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""),
        ("content-length", ""), ("content-location", ""), ("content-range", ""), ("content-type", ""),
        ("cookie", ""), ("date", ""), ("etag", ""), ("expect", ""), ("expires", ""), ("from", ""), ("host", ""),
        ("if-match", ""), ("if-modified-since", ""), ("if-none-match", ""), ("if-range", ""),
        ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""), ("location", ""), ("max-forwards", ""),
        ("proxy-authenticate", ""), ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""),
        ("retry-after", ""), ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""),
        ("transfer-encoding", ""), ("user-agent", ""), ("vary", ""), ("via", ""), ("www-authenticate", ""),
    )
)  # fmt: skip

#: RFC 7541 Appendix B: the Huffman code's length for each symbol 0-255 and EOS (256). The code
#: is canonical (codes of one length are consecutive, in symbol order), so the lengths define it.
HUFFMAN_LENGTHS = bytes.fromhex(
    "0d171c1c1c1c1c1c1c181e1c1c1e1c1c1c1c1c1c1c1c1e1c1c1c1c1c1c1c1c1c060a0a0c0d06080b0a0a080b0806060605"
    "05050606060606060607080f060c0a0d06070707070707070707070707070707070707070707070807080d130d0e060f05"
    "060506050606060507070606060506070605050607070707070f0b0e0d1c141614141616161716171717171718171818"
    "161718171717171516171617171816151416161717151716161815161717151516151716171714161616171616171a1a"
    "1413161716191a1a1a1b1b1a181913151a1b1b1a1b1815151a1a1c1b1b1b14181415161515171616191918181a171a1b"
    "1a1a1b1b1b1b1b1c1b1b1b1b1b1a1e"
)
EOS = 256


def _canonical(lengths: bytes) -> tuple[dict[int, int], dict[int, int], dict[int, int], list[int]]:
    """Per code length: its first code, how many codes and where they start in ``symbols``."""
    symbols = sorted(range(len(lengths)), key=lambda s: (lengths[s], s))
    first: dict[int, int] = {}
    count: dict[int, int] = {}
    offset: dict[int, int] = {}
    code, previous = 0, lengths[symbols[0]]
    for i, s in enumerate(symbols):
        length = lengths[s]
        if i:
            code = (code + 1) << (length - previous)
        previous = length
        if length not in first:
            first[length], count[length], offset[length] = code, 0, i
        count[length] += 1
    return first, count, offset, symbols


_FIRST, _COUNT, _OFFSET, _SYMBOLS = _canonical(HUFFMAN_LENGTHS)
_SHORTEST = min(HUFFMAN_LENGTHS)


def decode_huffman(data: bytes) -> bytes:
    """A Huffman-coded HPACK string (RFC 7541 5.2): padding of at most 7 one-bits, no EOS."""
    out = bytearray()
    code = length = 0
    for byte in data:
        for shift in range(7, -1, -1):
            code = (code << 1) | ((byte >> shift) & 1)
            length += 1
            if length < _SHORTEST or length not in _FIRST:
                continue
            index = code - _FIRST[length]
            if 0 <= index < _COUNT[length]:
                symbol = _SYMBOLS[_OFFSET[length] + index]
                if symbol == EOS:
                    raise ProtocolError("HPACK: EOS in a Huffman-coded string")
                out.append(symbol)
                code = length = 0
    if length > 7 or code != (1 << length) - 1:
        raise ProtocolError("HPACK: bad Huffman padding")
    return bytes(out)


def encode_integer(value: int, prefix_bits: int, first: int = 0) -> bytes:
    """An HPACK integer (RFC 7541 5.1) with ``prefix_bits`` in the first byte, whose high bits are
    ``first``."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_integer(data: bytes, pos: int, prefix_bits: int) -> tuple[int, int]:
    """The HPACK integer at ``data[pos]`` and the position after it."""
    limit = (1 << prefix_bits) - 1
    if pos >= len(data):
        raise ProtocolError("HPACK: truncated integer")
    value = data[pos] & limit
    pos += 1
    if value < limit:
        return value, pos
    shift = 0
    while True:
        if pos >= len(data) or shift > 28:
            raise ProtocolError("HPACK: truncated or oversized integer")
        byte = data[pos]
        pos += 1
        value += (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _literal(value: bytes) -> bytes:
    """A string literal, not Huffman-coded."""
    return encode_integer(len(value), 7) + value


def encode_headers(headers: Sequence[tuple[bytes, bytes]]) -> bytes:
    """A header block of literals without indexing, new names (RFC 7541 6.2.2): the encoder keeps
    no state, and the server's dynamic table is left alone."""
    return b"".join(b"\x00" + _literal(name) + _literal(value) for name, value in headers)


class HeaderDecoder:
    """HPACK's decoding side (RFC 7541): the dynamic table is the connection's, across blocks."""

    def __init__(self, max_size: int = 4096) -> None:
        self.max_size = max_size  # (SETTINGS_HEADER_TABLE_SIZE as the client advertised it)
        self.size = max_size
        self.table: list[tuple[bytes, bytes]] = []  # newest first
        self.used = 0

    def _entry(self, index: int) -> tuple[bytes, bytes]:
        if 1 <= index <= len(STATIC_TABLE):
            return STATIC_TABLE[index - 1]
        dynamic = index - len(STATIC_TABLE) - 1
        if 0 <= dynamic < len(self.table):
            return self.table[dynamic]
        raise ProtocolError(f"HPACK: no header at index {index}")

    def _add(self, name: bytes, value: bytes) -> None:
        self.table.insert(0, (name, value))
        self.used += len(name) + len(value) + 32
        self._evict()

    def _evict(self) -> None:
        while self.used > self.size and self.table:
            name, value = self.table.pop()
            self.used -= len(name) + len(value) + 32

    def _string(self, block: bytes, pos: int) -> tuple[bytes, int]:
        if pos >= len(block):
            raise ProtocolError("HPACK: truncated string")
        huffman = block[pos] & 0x80
        length, pos = decode_integer(block, pos, 7)
        if pos + length > len(block):
            raise ProtocolError("HPACK: truncated string")
        raw = block[pos : pos + length]
        return (decode_huffman(raw) if huffman else raw), pos + length

    def decode(self, block: bytes) -> list[tuple[bytes, bytes]]:
        """The header list of one complete block."""
        headers: list[tuple[bytes, bytes]] = []
        pos = 0
        while pos < len(block):
            byte = block[pos]
            if byte & 0x80:  # indexed header field
                index, pos = decode_integer(block, pos, 7)
                headers.append(self._entry(index))
                continue
            if byte & 0xE0 == 0x20:  # dynamic table size update
                size, pos = decode_integer(block, pos, 5)
                if size > self.max_size:
                    raise ProtocolError("HPACK: table size update over the advertised maximum")
                self.size = size
                self._evict()
                continue
            indexing = byte & 0xC0 == 0x40
            index, pos = decode_integer(block, pos, 6 if indexing else 4)
            if index:
                name = self._entry(index)[0]
            else:
                name, pos = self._string(block, pos)
            value, pos = self._string(block, pos)
            if indexing:
                self._add(name, value)
            headers.append((name, value))
        return headers


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    """One frame: its 9-byte header and ``payload``."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def _unpadded(flags: int, payload: bytes) -> bytes:
    if not flags & PADDED:
        return payload
    if not payload or payload[0] >= len(payload):
        raise ProtocolError("HTTP/2: bad padding")
    return payload[1 : len(payload) - payload[0]]


class UnaryCall:
    """One gRPC unary call on a new connection, stream 1 (module docstring)."""

    STREAM = 1

    def __init__(self, path: str, message: bytes, headers: Sequence[tuple[bytes, bytes]]) -> None:
        self.path = path
        self.body = b"\x00" + len(message).to_bytes(4, "big") + message  # gRPC: not compressed, its length
        self.headers = headers
        self.sent = 0
        self.connection_window = DEFAULT_WINDOW
        self.stream_window = DEFAULT_WINDOW
        self.peer_window = DEFAULT_WINDOW  # the server's SETTINGS_INITIAL_WINDOW_SIZE
        self.frame_size = FRAME_SIZE
        self.decoder = HeaderDecoder()
        self.buffer = bytearray()
        self.block = bytearray()  # a header block being received (HEADERS, then CONTINUATION)
        self.in_block = False
        self.block_ends_stream = False
        self.blocks: list[list[tuple[bytes, bytes]]] = []
        self.data = bytearray()
        self.done = False

    def start(self) -> bytes:
        """The bytes to send first: the preface, the client's settings, the whole window granted,
        the request's headers and as much of its message as the default windows allow."""
        settings = b"".join(
            key.to_bytes(2, "big") + value.to_bytes(4, "big")
            for key, value in ((SETTINGS_ENABLE_PUSH, 0), (SETTINGS_INITIAL_WINDOW_SIZE, MAX_WINDOW))
        )
        block = encode_headers(self.headers)
        if len(block) > FRAME_SIZE:
            raise ProtocolError("HTTP/2: request headers too large")
        return (
            PREFACE
            + frame(SETTINGS, 0, 0, settings)
            + frame(WINDOW_UPDATE, 0, 0, (MAX_WINDOW - DEFAULT_WINDOW).to_bytes(4, "big"))
            + frame(HEADERS, END_HEADERS, self.STREAM, block)
            + self._more_data()
        )

    def _more_data(self) -> bytes:
        """DATA frames for what the windows allow of the message not sent yet (the last one ends
        the stream)."""
        out = bytearray()
        while self.sent < len(self.body):
            room = min(self.connection_window, self.stream_window, self.frame_size, len(self.body) - self.sent)
            if room <= 0:
                break
            chunk = self.body[self.sent : self.sent + room]
            self.sent += room
            self.connection_window -= room
            self.stream_window -= room
            out += frame(DATA, END_STREAM if self.sent == len(self.body) else 0, self.STREAM, chunk)
        return bytes(out)

    def receive(self, data: bytes) -> bytes:
        """Take the server's bytes; the bytes to send in answer (maybe none)."""
        self.buffer += data
        out = bytearray()
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[:3], "big")
            if len(self.buffer) < 9 + length:
                break
            kind, flags = self.buffer[3], self.buffer[4]
            stream = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
            payload = bytes(self.buffer[9 : 9 + length])
            del self.buffer[: 9 + length]
            out += self._frame(kind, flags, stream, payload)
        return bytes(out)

    def _frame(self, kind: int, flags: int, stream: int, payload: bytes) -> bytes:
        if self.in_block and kind != CONTINUATION:
            raise ProtocolError("HTTP/2: a header block interrupted")
        if kind == SETTINGS:
            return b"" if flags & ACK else self._settings(payload)
        if kind == PING:
            return b"" if flags & ACK else frame(PING, ACK, 0, payload)
        if kind == WINDOW_UPDATE:
            if len(payload) != 4:
                raise ProtocolError("HTTP/2: bad WINDOW_UPDATE")
            grant = int.from_bytes(payload, "big") & 0x7FFFFFFF
            if stream == 0:
                self.connection_window += grant
            elif stream == self.STREAM:
                self.stream_window += grant
            return self._more_data()
        if kind == GOAWAY:
            last = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF if len(payload) >= 8 else 0
            code = int.from_bytes(payload[4:8], "big") if len(payload) >= 8 else -1
            if last < self.STREAM or code:
                raise ProtocolError(f"connection closed by the server (HTTP/2 error {code})")
            return b""
        if stream != self.STREAM:
            if kind == PUSH_PROMISE:
                raise ProtocolError("HTTP/2: a push the client disabled")
            return b""  # (PRIORITY, or frames of streams the client never opened)
        if kind == RST_STREAM:
            code = int.from_bytes(payload[:4], "big") if len(payload) >= 4 else -1
            raise ProtocolError(f"stream reset (HTTP/2 error {code})")
        if kind == DATA:
            self.data += _unpadded(flags, payload)
            if len(self.data) > MAX_RESPONSE:
                raise ProtocolError("response too large")
        elif kind == HEADERS:
            fragment = _unpadded(flags, payload)
            if flags & PRIORITY_FLAG:
                fragment = fragment[5:]
            self.block_ends_stream = bool(flags & END_STREAM)
            self._fragment(fragment, flags)
            return b""
        elif kind == CONTINUATION:
            if not self.in_block:
                raise ProtocolError("HTTP/2: CONTINUATION without HEADERS")
            self._fragment(payload, flags)
            return b""
        elif kind == PUSH_PROMISE:
            raise ProtocolError("HTTP/2: a push the client disabled")
        if flags & END_STREAM and kind == DATA:
            self.done = True
        return b""

    def _fragment(self, fragment: bytes, flags: int) -> None:
        self.block += fragment
        if len(self.block) > MAX_HEADER_BLOCK:
            raise ProtocolError("HTTP/2: header block too large")
        self.in_block = not flags & END_HEADERS
        if self.in_block:
            return
        self.blocks.append(self.decoder.decode(bytes(self.block)))
        self.block.clear()
        if self.block_ends_stream:
            self.done = True

    def _settings(self, payload: bytes) -> bytes:
        if len(payload) % 6:
            raise ProtocolError("HTTP/2: bad SETTINGS")
        for at in range(0, len(payload), 6):
            key, value = int.from_bytes(payload[at : at + 2], "big"), int.from_bytes(payload[at + 2 : at + 6], "big")
            if key == SETTINGS_INITIAL_WINDOW_SIZE:
                if value > MAX_WINDOW:
                    raise ProtocolError("HTTP/2: window over the maximum")
                self.stream_window += value - self.peer_window
                self.peer_window = value
            elif key == SETTINGS_MAX_FRAME_SIZE:
                self.frame_size = max(FRAME_SIZE, min(value, 2**24 - 1))
        return frame(SETTINGS, ACK, 0) + self._more_data()

    def status(self) -> tuple[int, str] | None:
        """``grpc-status`` and ``grpc-message`` of the last header block that has them."""
        for block in reversed(self.blocks):
            values = dict(block)
            if b"grpc-status" in values:
                try:
                    code = int(values[b"grpc-status"])
                except ValueError:
                    code = 2  # UNKNOWN
                return code, _percent_decoded(values.get(b"grpc-message", b""))
        return None

    def message(self) -> bytes:
        """The response message of a finished call; raises :class:`CallError` on a non-OK status."""
        status = self.status()
        if status is None:
            raise ProtocolError("the server sent no grpc-status")
        code, text = status
        if code:
            raise CallError(text or f"gRPC status {code}", code)
        body = bytes(self.data)
        if len(body) < 5 or body[0] != 0:
            raise ProtocolError("malformed or compressed response message")
        if int.from_bytes(body[1:5], "big") != len(body) - 5:
            raise ProtocolError("response message length does not match")
        return body[5:]


class CallError(Exception):
    """The server answered with a non-OK gRPC status (``status``)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _percent_decoded(raw: bytes) -> str:
    """``grpc-message`` is percent-encoded UTF-8 (gRPC's HTTP/2 protocol)."""
    if b"%" not in raw:
        return raw.decode("utf-8", "replace")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25 and i + 2 < len(raw) and _is_hex(raw[i + 1 : i + 3]):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


def _is_hex(pair: bytes) -> bool:
    return len(pair) == 2 and all(c in b"0123456789abcdefABCDEF" for c in pair)
