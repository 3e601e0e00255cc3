"""The gRPC server interceptor every call passes: decoding, validation, readiness, token.

In this order, before any servicer runs:

1. A request that does not decode (e.g. invalid UTF-8 in a string field) is
   INVALID_ARGUMENT (grpc's own deserializer would answer INTERNAL).
2. A call over TCP must carry the per-user token (metadata ``x-graphmem-token``); the Unix
   socket is private to the user (0600) and needs none. Missing or wrong: UNAUTHENTICATED.
3. While the daemon starts up or shuts down, everything but health, reflection, GetStatus
   and Shutdown is UNAVAILABLE with a retry hint (a ``google.rpc.RetryInfo`` detail and
   ``grpc-retry-pushback-ms``: ``status``), which the client library retries within the
   caller's deadline.
4. The request is validated (``graphmemd.memory.validation``): INVALID_ARGUMENT with a message.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Iterator
from typing import Any, Final

import grpc
from google.protobuf.message import Message
from graphmem.errors import GraphMemError, InvalidArgument, Unauthenticated, Unavailable

from graphmemd.memory.validation import validate_request
from graphmemd.service.status import RETRY_PUSHBACK_MS, abort

__all__ = ["RETRY_PUSHBACK_MS", "TOKEN_METADATA", "Guard"]

logger = logging.getLogger(__name__)

TOKEN_METADATA: Final = "x-graphmem-token"
_ALWAYS: Final = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.",
    "/graphmem.v1.DaemonService/GetStatus",
    "/graphmem.v1.DaemonService/Shutdown",
)


class _Undecodable:
    """Stands in for a request whose bytes did not decode."""

    def __init__(self, why: str) -> None:
        self.why = why


def _safe(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as exc:  # noqa: BLE001 - protobuf raises DecodeError, UnicodeDecodeError, ...
            return _Undecodable(f"the request does not decode: {exc}")

    return decode


class Guard(grpc.ServerInterceptor):  # type: ignore[type-arg]
    """See the module docstring. ``state`` returns "" when serving, else why not."""

    def __init__(self, state: Callable[[], str], token: str = "") -> None:
        self._state = state
        self._token = token.encode()

    def _refusal(self, method: str, request: Any, context: grpc.ServicerContext) -> GraphMemError | None:
        if isinstance(request, _Undecodable):
            return InvalidArgument(request.why)
        if self._token and not context.peer().startswith("unix:"):
            sent = dict(context.invocation_metadata()).get(TOKEN_METADATA, "")
            given = sent.encode() if isinstance(sent, str) else bytes(sent)
            if not hmac.compare_digest(given, self._token):
                return Unauthenticated(
                    "this TCP listener requires the per-user token (metadata x-graphmem-token); "
                    "the client library sends it from the token file"
                )
        if not method.startswith(_ALWAYS):
            why = self._state()
            if why:
                return Unavailable(f"graphmemd is {why}; retry in {RETRY_PUSHBACK_MS} ms")
        if isinstance(request, Message):
            try:
                validate_request(request)
            except InvalidArgument as exc:
                return exc
        return None

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        """The service's handler wrapped so that its requests are validated before it runs."""
        handler = continuation(handler_call_details)
        if handler is None or handler.request_streaming:
            return handler
        method = handler_call_details.method
        decode = _safe(handler.request_deserializer)
        if handler.response_streaming:
            inner_stream = handler.unary_stream
            assert inner_stream is not None

            def stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                refusal = self._refusal(method, request, context)
                if refusal is not None:
                    abort(context, refusal)
                yield from inner_stream(request, context)

            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=decode, response_serializer=handler.response_serializer
            )
        inner = handler.unary_unary
        assert inner is not None

        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            refusal = self._refusal(method, request, context)
            if refusal is not None:
                abort(context, refusal)
            return inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=decode, response_serializer=handler.response_serializer
        )
