"""Run the daemon as a login service: a systemd user unit (Linux) or a launchd agent (macOS).

``graphmem daemon install`` writes the unit/agent so the service manager starts the daemon at
login and restarts it when it fails, then enables and starts it (``systemctl --user enable
--now`` / ``launchctl bootstrap``); ``graphmem daemon uninstall`` stops it and removes the
file. The rendering is pure (``systemd_unit``, ``launchd_plist``); the thin shells
(``install``, ``uninstall``) write files and call the service manager.

Logging where the platform expects it: under systemd the daemon's stderr goes to the journal
(``journalctl --user -u graphmemd``); under launchd to ``~/Library/Logs/graphmem/``. The
daemon's own rotating log (``graphmem status`` shows where) is written either way.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from graphmem.errors import FailedPrecondition, GraphMemError

__all__ = [
    "LAUNCHD_LABEL",
    "SYSTEMD_UNIT",
    "Installed",
    "daemon_argv",
    "install",
    "launchd_plist",
    "service_file",
    "systemd_unit",
    "uninstall",
]

SYSTEMD_UNIT: Final = "graphmemd.service"
LAUNCHD_LABEL: Final = "dev.graphmem.graphmemd"

#: Exit codes after which restarting cannot help: 3 another daemon owns the store, 64 usage.
_NO_RESTART: Final = (3, 64)


@dataclass(frozen=True, slots=True)
class Installed:
    """What ``install``/``uninstall`` did: the file, and the service manager's commands run
    (or, when ``enable`` was off or the manager is unavailable, the ones to run by hand)."""

    path: Path
    ran: tuple[str, ...]
    to_run: tuple[str, ...]


def daemon_argv(home: str | None, repos: Sequence[str] = (), python: str | None = None) -> list[str]:
    """The daemon's command line: ``python -P -m graphmemd run`` (``-P``: the working directory
    never shadows the installed packages), with absolute ``--home`` / ``--repo`` paths."""
    argv = [python or sys.executable, "-P", "-m", "graphmemd", "run"]
    if home:
        argv += ["--home", str(Path(home).expanduser().absolute())]
    for repo in repos:
        argv += ["--repo", str(Path(repo).expanduser().resolve())]
    return argv


def _systemd_quote(arg: str) -> str:
    """One ExecStart word: plain when safe, else double-quoted (systemd's own quoting rules)."""
    if arg and all(c.isalnum() or c in "/._-+=:,@" for c in arg):
        return arg.replace("%", "%%")
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{escaped}"'


def systemd_unit(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """A systemd user unit that starts the daemon at login and restarts it on failure."""
    lines = [
        "# Written by `graphmem daemon install`; remove with `graphmem daemon uninstall`.",
        "[Unit]",
        "Description=graphmem code-graph memory daemon",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(_systemd_quote(a) for a in argv),
    ]
    for key, value in sorted((env or {}).items()):
        lines.append("Environment=" + _systemd_quote(f"{key}={value}"))
    lines += [
        "Restart=on-failure",
        "RestartSec=2",
        f"RestartPreventExitStatus={' '.join(str(c) for c in _NO_RESTART)}",
        "TimeoutStopSec=30",
        "# stderr goes to the journal: journalctl --user -u graphmemd",
        "StandardOutput=null",
        "StandardError=journal",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]
    return "\n".join(lines)


def launchd_plist(argv: Sequence[str], log_dir: Path, env: Mapping[str, str] | None = None) -> bytes:
    """A launchd agent that starts the daemon at login and restarts it when it exits with an error."""
    agent: dict[str, object] = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": list(argv),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 5,
        "ProcessType": "Background",
        "StandardOutPath": "/dev/null",
        "StandardErrorPath": str(log_dir / "graphmemd.stderr.log"),
    }
    if env:
        agent["EnvironmentVariables"] = dict(env)
    return plistlib.dumps(agent, sort_keys=True)


def _is_macos(platform: str) -> bool:
    return platform == "darwin"


def service_file(env: Mapping[str, str] | None = None, platform: str = sys.platform) -> Path:
    """Where the unit (``$XDG_CONFIG_HOME/systemd/user/graphmemd.service``) or the agent
    (``~/Library/LaunchAgents/dev.graphmem.graphmemd.plist``) lives."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if _is_macos(platform):
        return home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return config / "systemd" / "user" / SYSTEMD_UNIT


def _manager_commands(path: Path, platform: str, *, removing: bool) -> list[list[str]]:
    if _is_macos(platform):
        domain = f"gui/{os.getuid()}"
        if removing:
            return [["launchctl", "bootout", f"{domain}/{LAUNCHD_LABEL}"]]
        return [["launchctl", "bootstrap", domain, str(path)]]
    if removing:
        return [["systemctl", "--user", "disable", "--now", SYSTEMD_UNIT], ["systemctl", "--user", "daemon-reload"]]
    return [["systemctl", "--user", "daemon-reload"], ["systemctl", "--user", "enable", "--now", SYSTEMD_UNIT]]


def _run_manager(commands: list[list[str]], *, tolerate_failure: bool) -> tuple[list[str], list[str]]:
    """Run the service manager's commands; (ran, left to run by hand when it is unavailable)."""
    ran: list[str] = []
    for i, cmd in enumerate(commands):
        text = shlex.join(cmd)
        if shutil.which(cmd[0]) is None:
            return ran, [shlex.join(c) for c in commands[i:]]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)
        if proc.returncode != 0:
            if tolerate_failure:
                ran.append(f"{text}  (failed: {proc.stderr.strip() or proc.returncode})")
                continue
            why = proc.stderr.strip() or f"exit code {proc.returncode}"
            raise FailedPrecondition(f"`{text}` failed: {why}")
        ran.append(text)
    return ran, []


def install(
    home: str | None,
    repos: Sequence[str] = (),
    *,
    enable: bool = True,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
) -> Installed:
    """Write the unit/agent for this Python and home, then (``enable``) enable and start it."""
    if not (_is_macos(platform) or platform.startswith("linux")):
        raise FailedPrecondition(f"daemon install supports Linux (systemd) and macOS (launchd), not {platform}")
    env = os.environ if env is None else env
    path = service_file(env, platform)
    argv = daemon_argv(home, repos)
    keep = {k: env[k] for k in ("GRAPHMEM_PARSE_WORKERS", "GRAPHMEM_LOG_LEVEL", "GRAPHMEM_TCP") if env.get(k)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if _is_macos(platform):
            log_dir = Path(env.get("HOME") or Path.home()) / "Library" / "Logs" / "graphmem"
            log_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(launchd_plist(argv, log_dir, keep))
        else:
            path.write_text(systemd_unit(argv, keep), encoding="utf-8")
    except OSError as exc:
        raise GraphMemError(f"cannot write {path}: {exc.strerror or exc}") from exc
    commands = _manager_commands(path, platform, removing=False)
    if not enable:
        return Installed(path, (), tuple(shlex.join(c) for c in commands))
    ran, left = _run_manager(commands, tolerate_failure=False)
    return Installed(path, tuple(ran), tuple(left))


def uninstall(
    *, enable: bool = True, env: Mapping[str, str] | None = None, platform: str = sys.platform
) -> Installed:
    """Stop and disable the service (``enable``), then remove the unit/agent file."""
    path = service_file(env, platform)
    if not path.exists():
        raise FailedPrecondition(f"no graphmem service is installed ({path} does not exist)")
    commands = _manager_commands(path, platform, removing=True)
    ran: list[str] = []
    left: list[str] = []
    if enable:  # stop before removing the file: the manager needs it to stop the service
        ran, left = _run_manager(commands[:1], tolerate_failure=True)
    try:
        path.unlink()
    except OSError as exc:
        raise GraphMemError(f"cannot remove {path}: {exc.strerror or exc}") from exc
    if not enable:
        left = [shlex.join(c) for c in commands]
    elif left:
        left += [shlex.join(c) for c in commands[1:]]
    else:
        more, left = _run_manager(commands[1:], tolerate_failure=True)
        ran += more
    return Installed(path, tuple(ran), tuple(left))
