#!/usr/bin/env bash
# Runs baser's conformance catalogue on the example DUT (rtl/) with Icarus and cocotb: the
# correct DUT must pass every case, each planted bug must fail the case that targets it.
#   PYTHON=/path/to/venv/bin/python examples/conformance/run.sh [good|BUG_...]
# Closes with "N passed, M failed" (one per build); exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
PYTHON="${PYTHON:-python3}"
command -v iverilog >/dev/null 2>&1 || { echo "run.sh: iverilog not found" >&2; echo "0 passed, 1 failed"; exit 1; }
if ! "$PYTHON" -c 'import cocotb, baser.conformance' >/dev/null 2>&1; then
    echo "run.sh: $PYTHON lacks cocotb or baser" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
exec "$PYTHON" runner.py "$@"
