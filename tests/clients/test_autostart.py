"""``graphmem daemon install`` / ``uninstall`` on a temporary home: the systemd user unit is
written where systemd looks ($XDG_CONFIG_HOME/systemd/user), passes ``systemd-analyze verify``,
its ExecStart really starts a daemon, and the service manager is asked to enable/start and
later stop/disable it. ``systemctl`` is a recording stand-in on PATH so the real user's systemd
is never touched (a container has no user service manager to talk to anyway)."""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, short_tmp, wait_for
from graphmem.autostart import LAUNCHD_LABEL, daemon_argv, launchd_plist, service_file, systemd_unit
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError


@pytest.fixture
def fake_home() -> Iterator[Path]:
    home = short_tmp("gma")
    bin_dir = home / "bin"
    bin_dir.mkdir()
    recorder = bin_dir / "systemctl"
    recorder.write_text(f'#!/bin/sh\necho "$*" >> "{home}/systemctl.calls"\n')
    recorder.chmod(0o755)
    yield home
    shutil.rmtree(home, ignore_errors=True)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "GRAPHMEM_"))}
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / "config")
    env["GRAPHMEM_HOME"] = str(home / "gm")
    env["PATH"] = f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon"), env.get("PYTHONPATH", "")])
    return env


def _gm(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *args], env=_env(home), capture_output=True, text=True, timeout=60
    )


def _calls(home: Path) -> list[str]:
    path = home / "systemctl.calls"
    return path.read_text().splitlines() if path.exists() else []


def _verify(unit: Path, home: Path) -> subprocess.CompletedProcess[str]:
    runtime = home / "xdg-run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime), "XDG_CONFIG_HOME": str(home / "config")}
    return subprocess.run(
        ["systemd-analyze", "--user", "verify", str(unit)], env=env, capture_output=True, text=True, timeout=60
    )


def test_install_writes_a_unit_that_verifies_and_starts_the_daemon(fake_home: Path) -> None:
    out = _gm(fake_home, "daemon", "install")
    assert out.returncode == 0, out.stderr
    unit = fake_home / "config" / "systemd" / "user" / "graphmemd.service"
    assert f"wrote {unit}" in out.stdout
    text = unit.read_text()
    assert "Restart=on-failure" in text
    assert "WantedBy=default.target" in text
    assert "StandardError=journal" in text
    assert _calls(fake_home) == ["--user daemon-reload", "--user enable --now graphmemd.service"]

    # ExecStart is a working daemon command line (with this test's code on PYTHONPATH)
    [exec_line] = [ln for ln in text.splitlines() if ln.startswith("ExecStart=")]
    argv = shlex.split(exec_line.removeprefix("ExecStart="))
    assert argv[:5] == [sys.executable, "-P", "-m", "graphmemd", "run"]
    assert argv[5:] == ["--home", str(fake_home / "gm")]
    proc = subprocess.Popen(argv, env=_env(fake_home), cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with GraphMem(home=str(fake_home / "gm"), timeout=2) as client:

            def healthy() -> bool:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                try:
                    return client.health()
                except GraphMemError:
                    return False

            wait_for(healthy, timeout=60, interval=0.1)
            client.shutdown()
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)

    out = _gm(fake_home, "daemon", "uninstall")
    assert out.returncode == 0, out.stderr
    assert not unit.exists()
    assert _calls(fake_home)[2:] == ["--user disable --now graphmemd.service", "--user daemon-reload"]


def test_unit_passes_systemd_analyze_verify(fake_home: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd provides it)")
    out = _gm(fake_home, "daemon", "install", "--no-enable")
    assert out.returncode == 0, out.stderr
    unit = service_file(_env(fake_home), "linux")
    verified = _verify(unit, fake_home)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stderr.strip() == "", verified.stderr
    broken = fake_home / "config" / "systemd" / "user" / "broken.service"
    broken.write_text(unit.read_text().replace(sys.executable, "no/such/python"))
    assert _verify(broken, fake_home).returncode != 0  # the check can fail


def test_no_enable_only_writes_and_prints_the_commands(fake_home: Path) -> None:
    out = _gm(fake_home, "daemon", "install", "--no-enable")
    assert out.returncode == 0, out.stderr
    assert "systemctl --user enable --now graphmemd.service" in out.stdout
    assert _calls(fake_home) == []
    assert service_file(_env(fake_home), "linux").exists()
    out = _gm(fake_home, "daemon", "uninstall", "--no-enable")
    assert out.returncode == 0, out.stderr
    assert "systemctl --user disable --now graphmemd.service" in out.stdout
    assert not service_file(_env(fake_home), "linux").exists()
    again = _gm(fake_home, "daemon", "uninstall")
    assert again.returncode == 69, again.stderr  # nothing installed: failed precondition
    assert "not exist" in again.stderr


def test_systemd_quoting_survives_spaces_and_percent(fake_home: Path) -> None:
    argv = ["/opt/my python/bin/python3", "-P", "-m", "graphmemd", "run", "--home", "/tmp/100% home"]
    unit = systemd_unit(argv, {"GRAPHMEM_LOG_LEVEL": "DEBUG"})
    path = fake_home / "q.service"
    path.write_text(unit)
    [line] = [ln for ln in unit.splitlines() if ln.startswith("ExecStart=")]
    # systemd unescapes %% -> %; shlex then sees the same words
    assert shlex.split(line.removeprefix("ExecStart=").replace("%%", "%")) == argv
    assert 'Environment="GRAPHMEM_LOG_LEVEL=DEBUG"' in unit or "Environment=GRAPHMEM_LOG_LEVEL=DEBUG" in unit


def test_launchd_agent_for_macos(fake_home: Path) -> None:
    argv = daemon_argv(str(fake_home / "gm"))
    agent = plistlib.loads(launchd_plist(argv, fake_home / "logs"))
    assert agent["Label"] == LAUNCHD_LABEL
    assert agent["ProgramArguments"] == argv
    assert agent["RunAtLoad"] is True
    assert agent["KeepAlive"] == {"SuccessfulExit": False}  # restarted when it fails
    assert agent["StandardErrorPath"].startswith(str(fake_home / "logs"))
    path = service_file({"HOME": str(fake_home)}, "darwin")
    assert path == fake_home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
