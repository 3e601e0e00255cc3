"""The one exception hierarchy of graphmem, shared by the daemon, the client and the CLI.

Every class carries the gRPC status code it travels as (by name, so this module imports
nothing from grpc) and the exit code the CLI ends with. The daemon's service layer maps
these to gRPC statuses in one place; the client maps gRPC statuses back to these classes
in one place; the CLI turns them into exit codes in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

__all__ = [
    "AlreadyExists",
    "DaemonAlreadyRunning",
    "DaemonNotRunning",
    "FailedPrecondition",
    "GraphMemError",
    "InvalidArgument",
    "NotFound",
    "ResourceExhausted",
    "StoreError",
    "Timeout",
    "Unauthenticated",
    "Unavailable",
    "error_for_status",
]


class GraphMemError(Exception):
    """Base of every error graphmem raises on purpose."""

    grpc_status: ClassVar[str] = "INTERNAL"
    exit_code: ClassVar[int] = 1

    def __init__(self, message: str, *, reference: str = "", close_matches: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        #: A reference that did not resolve, and the refs closest to it (travel as the
        #: ``graphmem.v1.CloseMatches`` detail of the gRPC status, for programs to use).
        self.reference = reference
        self.close_matches = tuple(close_matches)

    def __str__(self) -> str:
        return self.message


class InvalidArgument(GraphMemError):
    """The request is malformed or names something that does not resolve."""

    grpc_status = "INVALID_ARGUMENT"
    exit_code = 64  # EX_USAGE


class NotFound(GraphMemError):
    """A repository, observation or symbol that was asked for does not exist."""

    grpc_status = "NOT_FOUND"
    exit_code = 66  # EX_NOINPUT


class AlreadyExists(GraphMemError):
    """What the request would create exists already."""

    grpc_status = "ALREADY_EXISTS"
    exit_code = 65


class FailedPrecondition(GraphMemError):
    """The request is valid but the daemon is not in a state to serve it."""

    grpc_status = "FAILED_PRECONDITION"
    exit_code = 69


class ResourceExhausted(GraphMemError):
    """The daemon cannot accept a write: the disk (or quota) is full. Nothing was saved;
    the write can be retried once space is freed, without restarting the daemon."""

    grpc_status = "RESOURCE_EXHAUSTED"
    exit_code = 74  # EX_IOERR


class Unavailable(GraphMemError):
    """The daemon answers but is starting up or shutting down: retry shortly."""

    grpc_status = "UNAVAILABLE"
    exit_code = 75  # EX_TEMPFAIL


class StoreError(GraphMemError):
    """The embedded store failed; the daemon keeps running, the journal keeps the data."""

    grpc_status = "INTERNAL"
    exit_code = 70


class Timeout(GraphMemError):
    """The daemon did not answer within the deadline."""

    grpc_status = "DEADLINE_EXCEEDED"
    exit_code = 75


class DaemonNotRunning(GraphMemError):
    """No daemon answers at the address (the CLI prints a hint how to start one)."""

    grpc_status = "UNAVAILABLE"
    exit_code = 2


class Unauthenticated(GraphMemError):
    """The daemon refused the call: a TCP connection without the right per-user token."""

    grpc_status = "UNAUTHENTICATED"
    exit_code = 77  # EX_NOPERM


class DaemonAlreadyRunning(GraphMemError):
    """Another daemon holds the store's lock."""

    grpc_status = "ALREADY_EXISTS"
    exit_code = 3


_BY_STATUS: dict[str, type[GraphMemError]] = {
    "INVALID_ARGUMENT": InvalidArgument,
    "NOT_FOUND": NotFound,
    "ALREADY_EXISTS": AlreadyExists,
    "FAILED_PRECONDITION": FailedPrecondition,
    "DEADLINE_EXCEEDED": Timeout,
    "UNAVAILABLE": DaemonNotRunning,
    "RESOURCE_EXHAUSTED": ResourceExhausted,
    "UNAUTHENTICATED": Unauthenticated,
}


def error_for_status(
    status_name: str, message: str, *, reference: str = "", close_matches: Sequence[str] = ()
) -> GraphMemError:
    """The exception for a gRPC status code name (e.g. ``"NOT_FOUND"``)."""
    return _BY_STATUS.get(status_name, GraphMemError)(message, reference=reference, close_matches=close_matches)
