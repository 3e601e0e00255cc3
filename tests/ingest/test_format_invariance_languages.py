"""Format invariance of the languages added after the first six: a real formatter where the
machine has one, else whitespace and comment rewrites, and every definition's ``sig_hash``
and ``body_hash`` stay identical (while a one-token change does not).

C and C++: ``clang-format`` (Debian's ``clang-format`` package; ``.ci/run`` installs it when
missing) in six built-in styles and one unusual configuration, over the fixture
repositories, ``tests/fixtures_fp/many_styles.*`` (files written in many styles at once) and,
when Debian's ``googletest`` is installed, every 6th of its sources and headers.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
from pathlib import Path

import pytest
from graphmemd.ingest.parsing import language_for_path, parse_source
from graphmemd.ingest.parsing.languages import SPECS
from tree_sitter import Language, Parser

ROOT = Path(__file__).resolve().parents[2]
FP = ROOT / "tests" / "fixtures_fp"
REPOS = ROOT / "fixtures" / "repos"

CLANG_STYLES = (
    "LLVM",
    "Google",
    "GNU",
    "Mozilla",
    "WebKit",
    "Microsoft",
    "{BasedOnStyle: LLVM, IndentWidth: 8, ColumnLimit: 40, BreakBeforeBraces: Allman, "
    "AllowShortFunctionsOnASingleLine: None, PointerAlignment: Left, SpaceBeforeParens: Always}",
)

Prints = dict[tuple[str, str], tuple[str, str]]


def prints(path: str, data: bytes) -> Prints:
    parsed = parse_source(path, data)
    return {(s.qualname, s.kind.value): (s.sig_hash, s.body_hash) for s in parsed.symbols}


def sources(*patterns: str, repos: tuple[str, ...] = ()) -> list[Path]:
    found = [p for pattern in patterns for p in sorted(FP.glob(pattern))]
    for repo in repos:
        found.extend(
            p
            for p in sorted((REPOS / repo).rglob("*"))
            if p.is_file() and p.suffix in (".c", ".h", ".cpp", ".hpp", ".cc")
        )
    return found


def compare(originals: dict[str, bytes], rewritten: dict[str, bytes]) -> tuple[int, int, list[str]]:
    """(files rewritten, definitions compared, the definitions whose hashes changed)."""
    changed_files = compared = 0
    changed: list[str] = []
    for name, data in originals.items():
        after = rewritten[name]
        changed_files += after != data
        before, now = prints(name, data), prints(name, after)
        assert set(before) == set(now), f"{name}: the definitions differ: {set(before) ^ set(now)}"
        for key, hashes in before.items():
            compared += 1
            if now[key] != hashes:
                changed.append(f"{name}::{key[0]}")
    return changed_files, compared, changed


GOOGLETEST = Path("/usr/src/googletest")


@pytest.mark.parametrize("style", CLANG_STYLES)
def test_clang_format_keeps_every_fingerprint(style: str) -> None:
    clang = shutil.which("clang-format")
    if clang is None:
        pytest.skip("clang-format is not installed (Debian: apt-get install clang-format; .ci/run installs it)")
    files = sources("many_styles.c", "many_styles.cpp", repos=("c", "cpp"))
    assert len(files) >= 8
    originals = {p.relative_to(ROOT).as_posix(): p.read_bytes() for p in files}
    for p in sorted(GOOGLETEST.glob("google*/[is]*/**/*.[ch]*"))[::6]:  # (Debian's googletest, when installed)
        data = p.read_bytes()
        if parse_source(p.name, data).syntax_errors == 0:  # (a file the grammar reads in full)
            originals[p.relative_to(GOOGLETEST).as_posix()] = data
    rewritten = {}
    for name, data in originals.items():
        out = subprocess.run(
            [clang, f"--style={style}", f"--assume-filename={name}"],
            input=data,
            capture_output=True,
            check=True,
            timeout=60,
        )
        rewritten[name] = out.stdout
    changed_files, compared, changed = compare(originals, rewritten)
    assert all(rewritten[n] != originals[n] for n in originals if "fixtures_fp" in n)  # written in every style
    assert changed_files >= 3
    assert compared >= 100
    assert changed == [], f"clang-format {style}: {len(changed)} of {compared} definitions changed: {changed}"


def test_a_one_token_change_is_seen() -> None:
    """The other direction: changing one operator or one literal changes that definition's
    body hash only."""
    name = "tests/fixtures_fp/many_styles.c"
    data = (ROOT / name).read_bytes()
    before = prints(name, data)
    old = b"return w * 2;"
    assert data.count(old) == 1
    after = prints(name, data.replace(old, b"return w * 3;"))
    diff = sorted(k[0] for k in before if before[k] != after[k])
    assert diff == ["dispatch"]


RUBY_STDLIB = Path("/usr/lib/ruby")


def _ruby_sample() -> list[Path]:
    """The Ruby fixture, the many-styles file and, when Debian's ``ruby`` is installed, every
    15th file of its standard library (sorted)."""
    found = [FP / "many_styles.rb", *sorted((REPOS / "ruby").rglob("*.rb"))]
    stdlib = sorted(p for p in RUBY_STDLIB.glob("[0-9]*/**/*.rb") if "/test" not in p.as_posix())
    return found + stdlib[::15]


def test_rubocop_layout_keeps_every_fingerprint(tmp_path: Path) -> None:
    rubocop = shutil.which("rubocop")
    if rubocop is None:
        pytest.skip("rubocop is not installed (Debian: apt-get install rubocop)")
    files = _ruby_sample()
    originals: dict[str, bytes] = {}
    for i, src in enumerate(files):
        data = src.read_bytes()
        if parse_source(src.name, data).syntax_errors:
            continue  # (the grammar and Ruby disagree about a few stdlib files)
        originals[f"f{i}.rb"] = data
        (tmp_path / f"f{i}.rb").write_bytes(data)
    (tmp_path / ".rubocop.yml").write_text("AllCops:\n  TargetRubyVersion: 3.1\n  NewCops: disable\n")
    subprocess.run(
        [rubocop, "-x", "--no-color", "--cache", "false", "--format", "quiet", "."],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        timeout=600,
    )
    rewritten = {name: (tmp_path / name).read_bytes() for name in originals}
    changed_files, compared, changed = compare(originals, rewritten)
    assert rewritten["f0.rb"] != originals["f0.rb"]  # the many-styles file
    assert changed_files >= 5
    assert compared >= 60
    assert changed == [], f"rubocop -x: {len(changed)} of {compared} definitions changed: {changed}"


PHP_LIBRARIES = Path("/usr/share/php")
#: PSR-12 without the sniffs that change tokens rather than layout (braces added around a
#: lone statement, `else if` -> `elseif`, `TRUE` -> `true`, keyword case)
PHPCBF_EXCLUDE = (
    "Generic.ControlStructures.InlineControlStructure,PSR2.ControlStructures.ElseIfDeclaration,"
    "Generic.PHP.LowerCaseConstant,Generic.PHP.LowerCaseKeyword,Generic.PHP.LowerCaseType,"
    "PSR12.Keywords.ShortFormTypeKeywords,PSR12.Functions.NullableTypeDeclaration,PSR2.Files.ClosingTag,"
    "PSR12.Files.OpenTag,Generic.Files.LineEndings,PSR2.Files.EndFileNewline,PSR12.Properties.ConstantVisibility"
)


def test_phpcbf_keeps_every_fingerprint(tmp_path: Path) -> None:
    phpcbf = shutil.which("phpcbf")
    if phpcbf is None:
        pytest.skip("phpcbf is not installed (Debian: apt-get install php-codesniffer)")
    files = [FP / "many_styles.php", *sorted((REPOS / "php").rglob("*.php"))]
    files += sorted(PHP_LIBRARIES.rglob("*.php"))[::12]
    originals: dict[str, bytes] = {}
    for i, src in enumerate(files):
        data = src.read_bytes()
        if parse_source(src.name, data).syntax_errors:
            continue
        originals[f"f{i}.php"] = data
        (tmp_path / f"f{i}.php").write_bytes(data)
    subprocess.run(
        [phpcbf, "--standard=PSR12", f"--exclude={PHPCBF_EXCLUDE}", "-q", str(tmp_path)],
        capture_output=True,
        check=False,
        timeout=600,
    )
    rewritten = {name: (tmp_path / name).read_bytes() for name in originals}
    changed_files, compared, changed = compare(originals, rewritten)
    assert rewritten["f0.php"] != originals["f0.php"]  # the many-styles file
    assert changed_files >= 3
    assert compared >= 40
    assert changed == [], f"phpcbf: {len(changed)} of {compared} definitions changed: {changed}"


def rewrite_layout(path: str, data: bytes, comment: bytes) -> bytes:
    """A whitespace and comment rewrite, for the languages without a formatter here: every
    line re-indented (one level: three spaces or a tab), an end-of-line ``comment`` after each
    line ending in ``{``, ``;``, ``(`` or ``,``, and a blank line after each ``}``; lines of
    multi-line strings and comments are left as they are."""
    spec = SPECS[language_for_path(path)]  # type: ignore[index]
    grammar = getattr(importlib.import_module(spec.grammar_module), spec.grammar_function)
    tree = Parser(Language(grammar())).parse(data)
    protected: set[int] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.end_point[0] > node.start_point[0] and ("string" in node.type or "comment" in node.type):
            protected.update(range(node.start_point[0] + 1, node.end_point[0] + 1))
            continue
        stack.extend(node.children)
    out: list[bytes] = []
    for number, line in enumerate(data.split(b"\n")):
        if number in protected:
            out.append(line)
            continue
        body = line.strip()
        depth = len(line) - len(line.lstrip())
        indent = b"\t" * (depth // 4) if number % 2 else b"   " * (depth // 4 + (depth % 4 > 0))
        if body.endswith((b"{", b";", b"(", b",")) and b"//" not in body and b"#" not in body and b'"' not in body:
            body += b"  " + comment
        out.append(indent + body if body else b"")
        if body.startswith(b"}"):
            out.append(b"")
    return b"\n".join(out)


LAYOUT_LANGUAGES = {"csharp": b"// layout", "kotlin": b"// layout", "scala": b"// layout", "swift": b"// layout"}


@pytest.mark.parametrize("name", sorted(LAYOUT_LANGUAGES))
def test_layout_rewrite_keeps_every_fingerprint(name: str) -> None:
    files = sorted(p for p in (REPOS / name).rglob("*") if p.is_file() and language_for_path(p.name))
    files += sorted(FP.glob(f"many_styles.{files[0].suffix.lstrip('.')}"))
    originals = {p.relative_to(ROOT).as_posix(): p.read_bytes() for p in files}
    rewritten = {n: rewrite_layout(n, d, LAYOUT_LANGUAGES[name]) for n, d in originals.items()}
    changed_files, compared, changed = compare(originals, rewritten)
    assert changed_files == len(files)
    assert compared >= 15
    assert changed == [], f"{name} layout rewrite: {len(changed)} of {compared} definitions changed: {changed}"
