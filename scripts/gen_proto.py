#!/usr/bin/env python3
"""Generate the committed Python stubs (and .pyi) from proto/ into clients/graphmem/v1/.

python scripts/gen_proto.py          # regenerate
python scripts/gen_proto.py --check  # exit 1 if the committed stubs are out of date (CI)
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
OUT_PKG = ROOT / "clients" / "graphmem" / "v1"


def generate(out_root: Path) -> Path:
    import grpc_tools

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "graphmem" / "v1").glob("*.proto"))
    include = Path(grpc_tools.__file__).parent / "_proto"
    cmd = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *protos,
    ]
    subprocess.run(cmd, check=True, cwd=PROTO_ROOT)
    pkg = out_root / "graphmem" / "v1"
    (pkg / "__init__.py").write_text('"""Generated gRPC stubs for graphmem.v1 (scripts/gen_proto.py)."""\n')
    return pkg


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if committed stubs differ")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pkg = generate(Path(tmp))
        names = sorted(p.name for p in pkg.iterdir() if p.is_file())
        if args.check:
            stale = [
                n for n in names if not (OUT_PKG / n).exists() or not filecmp.cmp(pkg / n, OUT_PKG / n, shallow=False)
            ]
            extra = sorted(p.name for p in OUT_PKG.glob("*.py*") if p.name not in names) if OUT_PKG.exists() else []
            if stale or extra:
                print(f"generated stubs out of date: {stale + extra}; run scripts/gen_proto.py", file=sys.stderr)
                return 1
            print("generated stubs up to date")
            return 0
        OUT_PKG.mkdir(parents=True, exist_ok=True)
        for n in names:
            shutil.copyfile(pkg / n, OUT_PKG / n)
        print(f"wrote {len(names)} files to {OUT_PKG.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
