"""One gRPC unary call over the daemon's Unix socket with the ``h2`` HTTP/2 library, for the hooks.

A hook is a new process on every session start and edit. ``import grpc`` alone costs it about
50 ms of CPU (its C core pulls in asyncio, ssl and logging), more than everything else the hook
does; the hook makes one unary call with a message ``wire`` already encoded. gRPC over HTTP/2 is a
small, documented protocol (``PROTOCOL-HTTP2.md`` in grpc's repository): a POST with
``content-type: application/grpc``, the message behind a five-byte prefix, the status in the
trailers. ``h2`` (python-hyper, pure Python, the HTTP/2 stack httpx uses) does the framing,
HPACK and flow control, at about a third of grpc's import cost.

Only local Unix-socket targets take this path; a TCP address (possibly TLS) goes through grpc.
Every failure raises :class:`CallFailed`; the hook says nothing then.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence

import h2.config
import h2.connection
import h2.events
import h2.exceptions

__all__ = ["CallFailed", "unary"]

#: The largest response accepted (a hook's answer is a few kilobytes).
MAX_RESPONSE = 8 * 1024 * 1024


class CallFailed(Exception):
    """The call did not return a message: the connection failed, timed out, or the daemon
    answered with a non-OK gRPC status (``status`` is its code, -1 when there was none)."""

    def __init__(self, message: str, status: int = -1) -> None:
        super().__init__(message)
        self.status = status


def _frame(message: bytes) -> bytes:
    """The gRPC length-prefixed message: not compressed, 4-byte big-endian length."""
    return b"\x00" + len(message).to_bytes(4, "big") + message


def _grpc_status(headers: Sequence[tuple[bytes, bytes]]) -> tuple[int, str] | None:
    """``grpc-status`` and ``grpc-message`` of a header block, None when it has no status."""
    values = dict(headers)
    if b"grpc-status" not in values:
        return None
    try:
        code = int(values[b"grpc-status"])
    except ValueError:
        code = 2  # UNKNOWN
    return code, values.get(b"grpc-message", b"").decode("utf-8", "replace")


class _Call:
    """The state of one call on one connection (stream 1)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.body = bytearray()
        self.status: tuple[int, str] | None = None
        self.ended = False

    def flush(self) -> None:
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def receive(self) -> None:
        """Read once from the socket and handle the events (raises when the daemon hung up)."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise CallFailed("deadline exceeded", 4)
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(65536)
        except TimeoutError as e:
            raise CallFailed("deadline exceeded", 4) from e
        if not data:
            raise CallFailed("the daemon closed the connection")
        for event in self.conn.receive_data(data):
            self._handle(event)
        self.flush()

    def _handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.DataReceived):
            self.body += event.data
            if len(self.body) > MAX_RESPONSE:
                raise CallFailed("response too large")
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
            status = _grpc_status(event.headers)  # a trailers-only answer carries it in its headers
            if status is not None:
                self.status = status
        elif isinstance(event, h2.events.StreamEnded):
            self.ended = True
        elif isinstance(event, h2.events.StreamReset):
            raise CallFailed(f"stream reset (HTTP/2 error {event.error_code})")
        elif isinstance(event, h2.events.ConnectionTerminated):
            raise CallFailed(f"connection closed by the daemon (HTTP/2 error {event.error_code})")

    def send(self, stream: int, payload: bytes) -> None:
        """Send ``payload`` as DATA frames as flow control allows, ending the stream."""
        view = memoryview(payload)
        while True:
            window = min(self.conn.local_flow_control_window(stream), self.conn.max_outbound_frame_size)
            if window <= 0 and view:
                self.flush()
                self.receive()  # wait for a WINDOW_UPDATE
                continue
            chunk, view = view[:window], view[window:]
            self.conn.send_data(stream, bytes(chunk), end_stream=not view)
            if not view:
                self.flush()
                return


def unary(
    socket_path: str, method: str, message: bytes, timeout: float, metadata: Sequence[tuple[str, str]] = ()
) -> bytes:
    """Call ``method`` (``/package.Service/Method``) with the encoded ``message`` on the daemon
    listening at ``socket_path``; the encoded response message. Raises :class:`CallFailed`."""
    deadline = time.monotonic() + timeout
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(socket_path)
        except OSError as e:
            raise CallFailed(f"cannot connect to {socket_path}: {e}", 14) from e
        call = _Call(sock, deadline)
        conn = call.conn
        conn.initiate_connection()
        stream = conn.get_next_available_stream_id()
        millis = max(1, int(timeout * 1000))
        headers = [
            (b":method", b"POST"),
            (b":scheme", b"http"),
            (b":path", method.encode("ascii")),
            (b":authority", b"localhost"),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
            (b"grpc-timeout", f"{millis}m".encode("ascii")),
            *((k.encode("ascii"), v.encode("utf-8")) for k, v in metadata),
        ]
        conn.send_headers(stream, headers)
        call.send(stream, _frame(message))
        while not call.ended:
            call.receive()
    except (OSError, h2.exceptions.H2Error) as e:
        raise CallFailed(f"{type(e).__name__}: {e}") from e
    finally:
        sock.close()
    return _message(call)


def _message(call: _Call) -> bytes:
    """The one message of a finished call (raises on a non-OK status or a malformed body)."""
    if call.status is None:
        raise CallFailed("the daemon sent no grpc-status")
    code, text = call.status
    if code != 0:
        raise CallFailed(text or f"gRPC status {code}", code)
    body = bytes(call.body)
    if len(body) < 5 or body[0] != 0:
        raise CallFailed("malformed or compressed response message")
    size = int.from_bytes(body[1:5], "big")
    if len(body) != 5 + size:
        raise CallFailed("response message length does not match")
    return body[5:]
