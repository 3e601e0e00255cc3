"""**Pure**: who may ask the review page what.

The page listens on the loopback interface and needs a random token made at each start: the
URL it opens with carries it (``?token=``), the answer sets it as a cookie (HttpOnly,
SameSite=Strict, named after the port, since cookies are not kept apart by port) and
redirects to the same URL without it. Every request needs the cookie (or the token in the
URL). A state-changing request (anything but GET/HEAD) also needs it in the
``X-Graphmem-Token`` header, which another site's page cannot set (no CSRF). The Host header
must name the address the page was opened on (no DNS rebinding).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "TOKEN_HEADER",
    "TOKEN_PARAM",
    "Outcome",
    "Verdict",
    "cookie_name",
    "is_loopback",
    "judge",
    "new_token",
]

TOKEN_HEADER = "x-graphmem-token"
TOKEN_PARAM = "token"
_SAFE = frozenset({"GET", "HEAD"})


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def cookie_name(port: int) -> str:
    """The token cookie's name for the page on ``port``."""
    return f"graphmem_ui_{port}"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is the loopback interface."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Outcome(str, Enum):
    """What to do with a request."""

    ALLOW = "allow"
    SET_COOKIE = "set_cookie"  # a GET with the right token in the URL: set the cookie, redirect without it
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome, with the HTTP status and message of a refusal."""

    outcome: Outcome
    status: int = 200
    message: str = ""


def _same(given: str, token: str) -> bool:
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


def judge(
    *,
    method: str,
    host: str,
    allowed_hosts: Iterable[str],
    token: str,
    cookie: str = "",
    query: str = "",
    header: str = "",
) -> Verdict:
    """The verdict on one request, from its method, Host header, and the token as found in
    its cookie, query string and ``X-Graphmem-Token`` header."""
    if host.lower() not in {h.lower() for h in allowed_hosts}:
        return Verdict(Outcome.REFUSE, 421, f"wrong Host header {host!r}: open the page through the URL it printed")
    if method.upper() not in _SAFE:
        if _same(header, token) and (_same(cookie, token) or _same(query, token)):
            return Verdict(Outcome.ALLOW)
        return Verdict(Outcome.REFUSE, 403, "refused: a change needs the page's token header (reload the page)")
    if _same(cookie, token):
        return Verdict(Outcome.ALLOW)
    if _same(query, token):
        return Verdict(Outcome.SET_COOKIE)
    return Verdict(
        Outcome.REFUSE, 403, "refused: open the page through the URL `graphmem ui` printed (it has the token)"
    )
