"""``graphmem daemon start|stop|run|install|uninstall`` and ``graphmem status``."""

from __future__ import annotations

import argparse
import os
import sys

from graphmem.cli.common import START_HINT, STATUS_TIMEOUT, Ctx, Registrar, check_repo_dirs, json_flag, to_jsonable
from graphmem.cli.views import render_status
from graphmem.errors import (
    DaemonAlreadyRunning,
    DaemonNotRunning,
    Timeout,
)
from graphmem.paths import unix_target


def _daemon_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--repo",
        metavar="PATH",
        action="extend",
        nargs="+",
        default=[],
        help="repository to register and watch (repeatable)",
    )
    p.add_argument("--tcp", metavar="HOST:PORT", help="also listen on this loopback TCP address")
    p.add_argument("--log-level", metavar="LEVEL", help="daemon log level (DEBUG, INFO, WARNING, ...)")


def register(r: Registrar) -> None:
    """``daemon …`` and ``status``."""
    # daemon
    daemon_verbs = r.group("daemon", "start, stop or run the daemon")
    p = r.verb("start", cmd_daemon_start, "start the daemon in the background", daemon_verbs)
    _daemon_opts(p)
    p.add_argument(
        "--wait", metavar="SECONDS", type=float, default=20.0, help="how long to wait until it serves (default: 20)"
    )
    p = r.verb("stop", cmd_daemon_stop, "stop the daemon gracefully", daemon_verbs)
    p.add_argument(
        "--wait", metavar="SECONDS", type=float, default=20.0, help="how long to wait until it exited (default: 20)"
    )
    _daemon_opts(r.verb("run", cmd_daemon_run, "run the daemon in the foreground", daemon_verbs))
    p = r.verb(
        "install",
        cmd_daemon_install,
        "start the daemon at login and restart it on failure (systemd user unit / launchd agent)",
        daemon_verbs,
    )
    p.add_argument("--repo", metavar="PATH", action="extend", nargs="+", default=[], help="also register these")
    p.add_argument("--no-enable", action="store_true", help="only write the file; print the commands to run")
    p = r.verb("uninstall", cmd_daemon_uninstall, "stop the login service and remove its unit/agent", daemon_verbs)
    p.add_argument("--no-enable", action="store_true", help="only remove the file; print the commands to run")

    p = r.verb("status", cmd_status, "daemon health, store and repositories (exit 0 healthy, 1 degraded, 2 down)")
    json_flag(p)


def cmd_daemon_start(args: argparse.Namespace, ctx: Ctx) -> int:
    """Start the daemon; when one is already running, register the ``--repo`` paths with it
    (exit 0), or exit 3 when there is nothing to register."""
    from graphmem.daemon_ctl import start_daemon

    check_repo_dirs(args.repo)
    try:
        pid = start_daemon(ctx.home, args.repo, args.tcp, args.log_level, timeout=args.wait)
    except DaemonAlreadyRunning:
        if not args.repo:
            raise
        with ctx.client() as client:
            for path in args.repo:
                repo = client.add_repo(path)
                ctx.print(f"graphmemd is already running; registered {repo.id}  {repo.root}  ({repo.state.value})")
        return 0
    ctx.print(f"graphmemd started (pid {pid}), listening on {unix_target(ctx.paths.socket)}")
    return 0


def cmd_daemon_stop(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem daemon stop``: stop the running daemon and wait for it to exit."""
    from graphmem.daemon_ctl import stop_daemon

    try:
        pid = stop_daemon(ctx.home, timeout=args.wait)
    except DaemonNotRunning:
        ctx.note("graphmemd is not running")
        return 0
    ctx.print(f"graphmemd stopped (pid {pid})" if pid else "graphmemd stopped")
    return 0


def cmd_daemon_run(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem daemon run``: replace this process with the daemon in the foreground."""
    from graphmem.daemon_ctl import daemon_command

    check_repo_dirs(args.repo)
    cmd = daemon_command(ctx.home, args.repo, args.tcp, args.log_level)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


def cmd_daemon_install(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem daemon install``: write (and enable) a user service that starts the daemon at login."""
    from graphmem.autostart import install

    check_repo_dirs(args.repo)
    with ctx.client(timeout=STATUS_TIMEOUT) as client:
        running_before = client.health()
    done = install(ctx.home, args.repo, enable=not args.no_enable)
    ctx.print(f"wrote {done.path}")
    for cmd in done.ran:
        ctx.print(f"ran: {cmd}")
    if done.to_run:
        ctx.print("to start it now and at every login, run:")
        for cmd in done.to_run:
            ctx.print(f"  {cmd}")
    if running_before and done.ran:
        ctx.note(
            "a daemon started by `graphmem daemon start` is still running, so the service's own start "
            "exited 3; hand over with: graphmem daemon stop, then start the service"
        )
    return 0


def cmd_daemon_uninstall(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem daemon uninstall``: disable and remove the user service."""
    from graphmem.autostart import uninstall

    done = uninstall(enable=not args.no_enable)
    ctx.print(f"removed {done.path}")
    for cmd in done.ran:
        ctx.print(f"ran: {cmd}")
    if done.to_run:
        ctx.print("to stop the running service, run:")
        for cmd in done.to_run:
            ctx.print(f"  {cmd}")
    return 0


def cmd_status(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem status``: the health check; exits non-zero when the daemon is down, not answering or degraded."""
    address = ctx.address
    try:
        with ctx.client(timeout=STATUS_TIMEOUT) as client:
            status = client.status()
    except DaemonNotRunning as exc:
        if args.json:
            ctx.print_json({"running": False, "address": address})
        ctx.note(str(exc))
        print(START_HINT, file=ctx.err)
        return DaemonNotRunning.exit_code
    except Timeout:
        if args.json:
            ctx.print_json({"running": True, "answering": False, "address": address})
        ctx.note(f"graphmemd at {address} is running but did not answer within {STATUS_TIMEOUT:g} s")
        return 1
    if args.json:
        data = to_jsonable(status)
        assert isinstance(data, dict)
        ctx.print_json({"running": True, "address": address, "healthy": status.healthy, **data})
    else:
        for line in render_status(status):
            ctx.print(line)
    return 0 if status.healthy else 1
