"""One gRPC unary call over the daemon's Unix socket, for the hooks: the socket shell around
``http2.UnaryCall``.

A hook is a new process on every session start and edit. ``import grpc`` alone costs it about
50 ms of CPU (its C core pulls in asyncio, ssl and logging), more than everything else the hook
does, and the ``h2`` library that replaced it still ~22 ms (``logging``, ``typing``, its event
classes); the hook makes one unary call with a message ``wire`` already encoded. gRPC over
HTTP/2 is a small, documented protocol (``PROTOCOL-HTTP2.md`` in grpc's repository): a POST
with ``content-type: application/grpc``, the message behind a five-byte prefix, the status in
the trailers. ``http2`` (pure) speaks the part of HTTP/2 and HPACK one unary call needs, and
decodes everything a server may send back; this module connects, sends, reads and times out.

Only local Unix-socket targets take this path; a TCP address (possibly TLS) goes through grpc.
Every failure raises :class:`CallFailed`; the hook says nothing then.
"""

from __future__ import annotations

# The C module the ``socket`` module wraps: its Python layer (``selectors``, ``array``, its
# enums) costs a hook ~14 M instructions to import, for nothing this call uses.
import _socket
import time
from collections.abc import Sequence

from graphmem.agents.http2 import MAX_RESPONSE, CallError, ProtocolError, UnaryCall

__all__ = ["MAX_RESPONSE", "CallFailed", "unary"]


class CallFailed(Exception):
    """The call did not return a message: the connection failed, timed out, or the daemon
    answered with a non-OK gRPC status (``status`` is its code, -1 when there was none)."""

    def __init__(self, message: str, status: int = -1) -> None:
        super().__init__(message)
        self.status = status


def unary(
    socket_path: str, method: str, message: bytes, timeout: float, metadata: Sequence[tuple[str, str]] = ()
) -> bytes:
    """Call ``method`` (``/package.Service/Method``) with the encoded ``message`` on the daemon
    listening at ``socket_path``; the encoded response message. Raises :class:`CallFailed`."""
    deadline = time.monotonic() + timeout
    headers = [
        (b":method", b"POST"),
        (b":scheme", b"http"),
        (b":path", method.encode("ascii")),
        (b":authority", b"localhost"),
        (b"content-type", b"application/grpc"),
        (b"te", b"trailers"),
        (b"grpc-timeout", f"{max(1, int(timeout * 1000))}m".encode("ascii")),
        *((k.encode("ascii"), v.encode("utf-8")) for k, v in metadata),
    ]
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(socket_path)
        except OSError as e:
            raise CallFailed(f"cannot connect to {socket_path}: {e}", 14) from e
        call = UnaryCall(method, message, headers)
        sock.sendall(call.start())
        while not call.done:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CallFailed("deadline exceeded", 4)
            sock.settimeout(remaining)
            try:
                data = sock.recv(65536)
            except TimeoutError as e:
                raise CallFailed("deadline exceeded", 4) from e
            if not data:
                raise CallFailed("the daemon closed the connection")
            answer = call.receive(data)
            if answer:
                sock.sendall(answer)
        return call.message()
    except CallError as e:
        raise CallFailed(str(e), e.status) from e
    except (OSError, ProtocolError) as e:
        raise CallFailed(f"{type(e).__name__}: {e}") from e
    finally:
        sock.close()
