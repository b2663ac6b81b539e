#!/usr/bin/env bash
# Runs the loopback test bench (baser's BaseRSerdesSource/Sink around loopback.v) with Icarus
# Verilog and cocotb: the correct pipeline must pass, the one with a planted fault must be
# caught. Closes with "N passed, M failed"; exits non-zero on any failure.
#
#   PYTHON=/path/to/venv/bin/python examples/cocotb-loopback/run.sh
#
# PYTHON (default: python3) must have cocotb, cocotbext-eth and baser installed
# (`pip install cocotb cocotbext-eth ./python`; .ci/python does it all).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

PYTHON="${PYTHON:-python3}"
command -v iverilog >/dev/null 2>&1 || { echo "run.sh: iverilog not found" >&2; echo "0 passed, 1 failed"; exit 1; }
if ! "$PYTHON" -c 'import cocotb, cocotbext.eth, baser' >/dev/null 2>&1; then
    echo "run.sh: $PYTHON lacks cocotb, cocotbext-eth or baser" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
echo "cocotb $("$PYTHON" -c 'import cocotb; print(cocotb.__version__)')," \
     "cocotbext-eth $("$PYTHON" -c 'import cocotbext.eth as e; print(e.__version__)')," \
     "baser $("$PYTHON" -c 'import baser; print(baser.__version__)')," \
     "$(iverilog -V 2>/dev/null | head -1)"

# the runner prints the closing "N passed, M failed" line and exits 1 on any failure
exec "$PYTHON" runner.py
