#!/usr/bin/env bash
# Runs the cocotb dump recipe of docs/user-guide.md section 1 on pcs_tx.v, with Icarus Verilog:
# the correct DUT must pass both `baser check`s, the DUT with a planted fault must fail them.
#
#   BASER=/path/to/baser examples/cocotb-dump/run.sh      (default: `baser` on PATH)
#
# Creates .venv here (cocotb, cocotbext-eth: the versions pip installs) if missing; needs python3 (with venv) and
# iverilog (Debian/Ubuntu: apt-get install iverilog). Closes with "N passed, M failed";
# exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

BASER="${BASER:-baser}"
if ! command -v "$BASER" >/dev/null 2>&1; then
    echo "run.sh: baser binary not found (BASER=$BASER)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
# the tests run in sim_build/<case>/: give them an absolute path
BASER="$(cd "$(dirname "$(command -v "$BASER")")" && pwd)/$(basename "$BASER")"
export BASER

command -v iverilog >/dev/null 2>&1 || { echo "run.sh: iverilog not found" >&2; exit 1; }

# PyPI can fail for a moment: three attempts before giving up.
pip_retry() {
    for attempt in 1 2 3; do
        "$@" && return 0
        echo "pip failed (attempt $attempt of 3)" >&2
        sleep 10
    done
    return 1
}
if ! .venv/bin/python -c 'import cocotb, cocotbext.eth' >/dev/null 2>&1; then
    python3 -m venv .venv
    pip_retry .venv/bin/pip install --quiet --disable-pip-version-check cocotb cocotbext-eth
fi
echo "cocotb $(.venv/bin/python -c 'import cocotb; print(cocotb.__version__)')," \
     "cocotbext-eth $(.venv/bin/python -c 'import cocotbext.eth as e; print(e.__version__)')," \
     "$(iverilog -V 2>/dev/null | head -1)"

# the runner prints the closing "N passed, M failed" line and exits 1 on any failure
exec .venv/bin/python runner.py
