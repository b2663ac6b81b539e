#!/usr/bin/env bash
# Speed of the cocotb models (a benchmark, not a test): simulated clocks per second with
# baser's models and the pure-Python ones, on loopback.v with the same frames.
#
#   PYTHON=/path/to/venv/bin/python examples/cocotb-loopback/bench.sh [ORIGINAL_BASER_PY]
#
# ORIGINAL_BASER_PY: a test bench's own tb/baser.py (verilog-ethernet or taxi), to compare
# the serdes models with; without it only the XGMII pair is compared (cocotbext-eth's models
# install from PyPI). BENCH_FRAMES (default 300) frames of 60..1514 octets, back to back.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
PYTHON="${PYTHON:-python3}"
original="${1:-}"
runs=(xgmii-cocotbext xgmii-baser serdes-baser)
[ -n "$original" ] && runs+=(serdes-original) && export BENCH_ORIGINAL="$(realpath "$original")"
"$PYTHON" - "${runs[@]}" <<'PY'
import os, re, subprocess, sys
from pathlib import Path
try:
    from cocotb_tools.runner import get_runner
except ImportError:
    from cocotb.runner import get_runner
here = Path.cwd()
runner = get_runner("icarus")
build = here / "sim_build" / "bench"
runner.build(sources=[here / "loopback.v"], hdl_toplevel="loopback", build_dir=build,
             always=True, timescale=("1ns", "1ps"))
rows = {}
for models in sys.argv[1:]:
    os.environ["BENCH_MODELS"] = models
    log = build / f"{models}.log"
    with open(log, "w") as out:
        old = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            runner.test(test_module="bench_models", hdl_toplevel="loopback", build_dir=build,
                        test_dir=here, results_xml=str(build / f"{models}.xml"))
        except SystemExit:
            pass
        finally:
            os.dup2(old, 1)
    m = re.search(r"BENCH (\S+) (\d+) (\S+) (\d+)", log.read_text())
    if not m:
        sys.exit(f"{models}: no result (see {log})")
    rows[models] = (int(m[2]), float(m[3]), int(m[4]))
print(f"{'models':18} {'clocks':>8} {'seconds':>8} {'clocks/s':>9}")
for k, (n, s, r) in rows.items():
    print(f"{k:18} {n:8} {s:8.2f} {r:9}")
for kind in ("xgmii", "serdes"):
    ours = rows.get(f"{kind}-baser")
    ref = rows.get(f"{kind}-cocotbext") or rows.get(f"{kind}-original")
    if ours and ref:
        print(f"{kind}: baser runs {ours[2] / ref[2]:.2f}x the clocks per second of the pure-Python models")
PY
