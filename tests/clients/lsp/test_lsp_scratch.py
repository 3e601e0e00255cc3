from __future__ import annotations
import time
import pytest
from conftest import Daemon, wait_for
from lsplib import *  # noqa

@pytest.mark.asyncio
async def test_smoke(py_daemon: Daemon) -> None:
    repo = py_daemon.repos[0]
    with py_daemon.client() as gm:
        a = gm.observe("hash must be constant time", anchors=["app/auth/crypto.py::hash_password"], repo=str(repo))
    client = await start_server(py_daemon.home)
    try:
        f = repo / "app/auth/crypto.py"
        uri = open_file(client, f)
        await eventually(lambda: _has(client, uri))
        print(await hover_text(client, uri, 7, 6))
        print(await lenses(client, uri))
        t0 = time.monotonic()
        f.write_text(f.read_text().replace("return digest(password, salt=SALT)", "return digest(password.strip(), salt=SALT)"))
        async def stale():
            return graphmem_diagnostics(client, uri)
        d = await eventually(stale)
        print("stale after", time.monotonic() - t0, d)
        print(await execute(client, "graphmem.status"))
        print(client.messages, client.lens_refreshes, client.statuses[-1:])
    finally:
        await stop_server(client)

async def _has(client, uri):
    return uri in client.diagnostics
