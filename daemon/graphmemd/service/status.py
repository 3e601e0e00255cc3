"""The one mapping from a graphmem error to the gRPC status a call ends with.

Both the servicers (``servicers._rpc``) and the request guard (``guard``) end a call through
``abort``; what a program needs besides the code travels as details of a rich
``google.rpc.Status`` (the ``grpc-status-details-bin`` trailer, as grpc's rich-status
examples send it), never only in the message's words:

- a reference that did not resolve: a ``graphmem.v1.CloseMatches`` detail;
- "busy, retry" (``Unavailable``: starting up, shutting down, a repository loading, a store
  write not acknowledged in time): a ``google.rpc.RetryInfo`` detail with the delay, and the
  same delay as ``grpc-retry-pushback-ms`` (what grpc's own retry policy reads). The client
  retries exactly the calls that carry ``RetryInfo``.
"""

from __future__ import annotations

from typing import Final, NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from graphmem.errors import GraphMemError, Unavailable
from graphmem.v1 import types_pb2 as tpb
from grpc_status import rpc_status

__all__ = ["RETRY_PUSHBACK_MS", "abort", "status_of"]

#: How long a client is told to wait before retrying a call the daemon was too busy for.
RETRY_PUSHBACK_MS: Final = 250


def status_of(exc: GraphMemError) -> grpc.Status:
    """``exc`` as a gRPC status: its code, its message and the details a program reads."""
    code = grpc.StatusCode[exc.grpc_status]
    details: list[any_pb2.Any] = []
    if exc.close_matches:
        detail = any_pb2.Any()
        detail.Pack(tpb.CloseMatches(reference=exc.reference, candidates=exc.close_matches))
        details.append(detail)
    retryable = isinstance(exc, Unavailable)
    if retryable:
        info = error_details_pb2.RetryInfo()
        info.retry_delay.FromMilliseconds(RETRY_PUSHBACK_MS)
        detail = any_pb2.Any()
        detail.Pack(info)
        details.append(detail)
    if not details:
        return _Status(code, exc.message, ())
    status = rpc_status.to_status(status_pb2.Status(code=code.value[0], message=exc.message, details=details))
    pushback = (("grpc-retry-pushback-ms", str(RETRY_PUSHBACK_MS)),) if retryable else ()
    return _Status(status.code, status.details, tuple(status.trailing_metadata) + pushback)


def abort(context: grpc.ServicerContext, exc: GraphMemError) -> NoReturn:
    """End the call with ``exc``'s status (``status_of``)."""
    context.abort_with_status(status_of(exc))
    raise AssertionError("abort_with_status returned")  # grpc raises; never reached


class _Status(grpc.Status):
    """A status with the given trailing metadata (``rpc_status.to_status`` builds only its own)."""

    def __init__(
        self, code: grpc.StatusCode, details: str, trailing_metadata: tuple[tuple[str, str | bytes], ...]
    ) -> None:
        self.code = code
        self.details = details
        self.trailing_metadata = trailing_metadata
