"""Start the review page: the address (loopback unless ``--host`` says otherwise, with a
warning then), a free port, a fresh token, uvicorn serving the app on that socket, and the
browser opened on the URL that carries the token."""

from __future__ import annotations

import os
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import uvicorn

from graphmem.actor import local_actor
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument
from graphmem.types import Repository
from graphmem.ui import guard
from graphmem.ui.follower import Follower
from graphmem.ui.gateway import Gateway
from graphmem.ui.web import Settings, build_app

__all__ = ["Address", "bind", "serve"]

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class Address:
    """Where the page listens, how its URL names it, and a warning for a non-loopback bind."""

    host: str
    port: int
    url_host: str
    warning: str = ""

    def hosts(self) -> tuple[str, ...]:
        """The Host header values the page answers to."""
        names = {self.url_host, LOOPBACK, "localhost"} if guard.is_loopback(self.host) else {self.url_host}
        return tuple(sorted(f"{h}:{self.port}" for h in names))


def bind(host: str | None, port: int) -> tuple[socket.socket, Address]:
    """A listening socket on ``host`` (None: 127.0.0.1) and ``port`` (0: a free one). A
    non-loopback host is allowed because it was given explicitly, with a warning."""
    chosen = host or LOOPBACK
    family = socket.AF_INET6 if ":" in chosen else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((chosen, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(True)
    real_port = sock.getsockname()[1]
    url_host = f"[{chosen}]" if family == socket.AF_INET6 else chosen
    warning = ""
    if not guard.is_loopback(chosen):
        warning = (
            f"warning: the review page listens on {chosen}, not only this machine: anyone who can reach "
            f"{url_host}:{real_port} and gets the URL with its token can change your notes. "
            "Prefer the default (127.0.0.1) and an SSH tunnel (docs/ui.md)."
        )
    return sock, Address(chosen, real_port, url_host, warning)


def serve(
    client: GraphMem,
    repo: Repository,
    *,
    host: str | None = None,
    port: int = 0,
    open_browser: bool = True,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    opener: Callable[[str], object] = webbrowser.open,
) -> int:
    """Serve the review page of ``repo`` until interrupted; returns the exit code."""
    try:
        sock, address = bind(host, port)
    except OSError as exc:
        raise InvalidArgument(f"cannot listen on {host or LOOPBACK}:{port}: {exc.strerror or exc}") from exc
    token = guard.new_token()
    settings = Settings(
        token=token, port=address.port, allowed_hosts=address.hosts(), editor=os.environ.get("EDITOR", "")
    )
    actor = local_actor("ui")
    follower = Follower(lambda after: client.events(repo=repo.id, after_seq=after))
    follower.start()
    gateway = Gateway(client, repo, actor, follower)
    app = build_app(gateway, settings)
    threading.Thread(target=gateway.warm, name="graphmem-ui-warm", daemon=True).start()  # one read, then done
    url = f"http://{address.url_host}:{address.port}/queue?{guard.TOKEN_PARAM}={token}"
    if address.warning:
        print(address.warning, file=err, flush=True)
    print(f"graphmem review page of {repo.root}: {url}", file=out, flush=True)
    print("(the token in the URL is this run's only key; stop with Ctrl-C)", file=out, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    if open_browser:

        def open_when_ready() -> None:
            started = threading.Event()
            while not started.wait(0.05):
                if server.started or server.should_exit:
                    started.set()
            if server.started:
                opener(url)

        threading.Thread(target=open_when_ready, name="graphmem-ui-open", daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        follower.stop()
        sock.close()
    return 0
