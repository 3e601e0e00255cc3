"""Real offline source corpora for the benchmarks, one per language that has one on this
machine: the Python standard library, and sources shipped by Debian packages (installed by
``setup`` when missing and running as root; a tarball is unpacked to a scratch directory).

    corpus       package               what                                      files
    python       (the interpreter)     the standard library                      .py
    go           golang-src            the Go standard library                   .go
    rust         rust-src              the Rust standard library                 .rs
    c            bluez-source          BlueZ (Linux Bluetooth stack)             .c .h
    cpp          googletest            googletest + googlemock                   .cc .h
    juce         juce-modules-source   JUCE modules (audio/GUI framework)        .cpp .h
    ruby         ruby (libruby)        the Ruby standard library                 .rb
    php          php-codesniffer, php-twig, php-symfony-console, php-monolog
                                       PHP libraries under /usr/share/php        .php
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import tarfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Corpus:
    """Where a corpus comes from and what of it is read."""

    package: str  # Debian package ("" for the Python standard library)
    pattern: str  # glob of the tree or tarball the package installs (the last match wins)
    suffixes: tuple[str, ...]
    family: str  # resolution family in RepoResolver.stats()
    language: str  # the language whose parse cost bench_parse reports


CORPORA: dict[str, Corpus] = {
    "python": Corpus("", "", (".py",), "python", "python"),
    "go": Corpus("golang-src", "/usr/share/go-*/src", (".go",), "go", "go"),
    "rust": Corpus("rust-src", "/usr/src/rustc-*/library", (".rs",), "rust", "rust"),
    "c": Corpus("bluez-source", "/usr/src/bluez.tar.*", (".c", ".h"), "c/c++", "c"),
    "cpp": Corpus("googletest", "/usr/src/googletest", (".cc", ".h"), "c/c++", "cpp"),
    "juce": Corpus("juce-modules-source", "/usr/share/juce/modules", (".cpp", ".h"), "c/c++", "cpp"),
    "ruby": Corpus("ruby", "/usr/lib/ruby/[0-9]*", (".rb",), "ruby", "ruby"),
    "php": Corpus(
        "php-codesniffer php-twig php-symfony-console php-monolog", "/usr/share/php", (".php",), "php", "php"
    ),
}


def _found(pattern: str) -> Path | None:
    hits = sorted(Path("/").glob(pattern.lstrip("/")))
    return hits[-1] if hits else None


def setup(names: list[str]) -> None:
    """Install the Debian packages of the corpora that are missing (apt-get, as root)."""
    wanted = [CORPORA[n] for n in names if CORPORA[n].package]
    missing = [p for c in wanted if _found(c.pattern) is None for p in c.package.split()]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SystemExit(f"missing {' '.join(missing)}: install them with apt-get (as root)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)


def tree(name: str, scratch: Path) -> Path:
    """The root of corpus ``name`` (a tarball is unpacked under ``scratch`` first)."""
    corpus = CORPORA[name]
    if not corpus.package:
        return Path(sysconfig.get_paths()["stdlib"])
    found = _found(corpus.pattern)
    if found is None:
        raise SystemExit(f"corpus {name}: {corpus.pattern} not found (apt-get install {corpus.package})")
    if found.is_dir():
        return found
    dest = scratch / name
    dest.mkdir(parents=True)
    with tarfile.open(found) as tar:
        tar.extractall(dest, filter="data")
    inner = [p for p in dest.iterdir() if p.is_dir()]
    return inner[0] if len(inner) == 1 else dest
