#!/usr/bin/env bash
# Builds the DPI-C test bench of examples/dpi-verilator with Verilator in four variants of the
# repeater (fault0 correct, fault1 an invalid sync header, fault2 a flipped payload bit, fault3
# a flipped FCS bit), runs each with the package's batches (64 clocks a DPI call) and fault1,
# fault2 again one clock a call (+batch=1: the push of the very clock returns a divergence),
# and closes with "N passed, M failed"; exits 1 on any failure.
#
#   BASER_LIB_DIR=/path/to/dir/with/libbaser examples/dpi-verilator/run.sh [CASE...]
#
# BASER_LIB_DIR: where libbaser.so (or libbaser.a) is; default capi/target/debug of the repo
# (cd capi && cargo build: capi/ is a workspace of its own), else target/debug. CASE: fault0
# fault1 fault2 fault3 fault1-batch1 fault2-batch1 (default all). JOBS: make jobs (default 2). Build products, logs and reports go
# to examples/dpi-verilator/build/CASE/.
set -uo pipefail
# (a relative BASER_LIB_DIR is taken from where the script was called)
case "${BASER_LIB_DIR:-}" in ""|/*) ;; *) BASER_LIB_DIR="$PWD/$BASER_LIB_DIR" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"

if [ -z "${BASER_LIB_DIR:-}" ]; then
    BASER_LIB_DIR="$repo/capi/target/debug"
    [ -f "$BASER_LIB_DIR/libbaser.so" ] || [ -f "$BASER_LIB_DIR/libbaser.a" ] || BASER_LIB_DIR="$repo/target/debug"
fi
LIB_DIR="$(cd "$BASER_LIB_DIR" 2>/dev/null && pwd)" || { echo "run.sh: BASER_LIB_DIR=$BASER_LIB_DIR: no such directory" >&2; echo "0 passed, 1 failed"; exit 1; }
JOBS="${JOBS:-2}"
VERILATOR="${VERILATOR:-verilator}"

if [ -f "$LIB_DIR/libbaser.so" ]; then
    LDLIBS="-L$LIB_DIR -lbaser -Wl,-rpath,$LIB_DIR"
elif [ -f "$LIB_DIR/libbaser.a" ]; then
    LDLIBS="$LIB_DIR/libbaser.a -lpthread -ldl -lm"
else
    echo "run.sh: no libbaser.so or libbaser.a in $LIB_DIR (cd capi && cargo build; or set BASER_LIB_DIR)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
command -v "$VERILATOR" >/dev/null 2>&1 || { echo "run.sh: $VERILATOR not found" >&2; echo "0 passed, 1 failed"; exit 1; }
echo "$("$VERILATOR" --version), library: $LIB_DIR"

# case -> verilator parameters. FAULT_N: for FAULT=1 the output block after reset that gets
# the invalid header (inside a frame), for FAULT=2 the data block after reset whose bit 21 flips.
params() {
    case "${1%-batch1}" in
        fault0) echo "-GFAULT=0" ;;
        fault1) echo "-GFAULT=1 -GFAULT_N=700 -GBAD_HDR=0" ;;
        fault2) echo "-GFAULT=2 -GFAULT_N=1000" ;;
        fault3) echo "-GFAULT=2 -GFAULT_N=7 -GFAULT_BIT=40" ;;
        *) return 1 ;;
    esac
}

# build CASE [extra verilator args...]: build/CASE/sim
build() {
    local name="$1"; shift
    local dir="build/$name"
    mkdir -p "$dir"
    # shellcheck disable=SC2046
    "$VERILATOR" --cc --exe --build -j "$JOBS" --top-module tb --timescale 1ns/1ps \
        -Mdir "$dir/obj" -o ../sim "$@" \
        "$repo/capi/sv/baser_pkg.sv" "$here/rtl/repeater.sv" "$here/tb/tb.sv" "$here/tb/sim_main.cpp" \
        -LDFLAGS "$LDLIBS" >"$dir/build.log" 2>&1
}

# the JSON report's verdict, read by python3 when there is one (the bench reads it too)
json_verdict() {
    command -v python3 >/dev/null 2>&1 || { echo "?"; return; }
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1" 2>/dev/null || echo "unreadable"
}

cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(fault0 fault1 fault2 fault3 fault1-batch1 fault2-batch1)
passed=0
failed=0
start=$SECONDS
for c in "${cases[@]}"; do
    if ! p="$(params "$c")"; then
        echo "== $c: unknown case (fault0 fault1 fault2 fault3 fault1-batch1 fault2-batch1)"; failed=$((failed + 1)); continue
    fi
    # a -batch1 case runs its base case's build one clock a DPI call
    b="${c%-batch1}"
    plus=""
    [ "$b" = "$c" ] || plus="+batch=1"
    dir="build/$c"
    echo "== $c ($p${plus:+ $plus})"
    # shellcheck disable=SC2086
    if [ ! -x "build/$b/sim" ] || [ "$b" = "$c" ]; then
        if ! build "$b" $p; then
            tail -30 "build/$b/build.log"
            echo "== $c: FAILED (build, see $here/build/$b/build.log)"
            failed=$((failed + 1)); continue
        fi
    fi
    mkdir -p "$dir"
    rm -f "$dir/report.json" "$dir/report.xml"
    # shellcheck disable=SC2086
    "build/$b/sim" +json="$dir/report.json" +junit="$dir/report.xml" $plus >"$dir/sim.log" 2>&1
    rc=$?
    # the bench's own lines, the checker's $error reports and the clock count
    grep -E '^TB:|^\[.*baser_checker|^%Error|^sim:' "$dir/sim.log"
    ok=1
    [ $rc -eq 0 ] || { echo "   bench exited $rc"; ok=0; }
    want=pass; [ "$c" = fault0 ] || want=fail
    v="$(json_verdict "$dir/report.json")"
    if [ "$v" != "?" ] && [ "$v" != "$want" ]; then
        echo "   $dir/report.json: verdict $v, want $want"; ok=0
    fi
    [ -s "$dir/report.xml" ] || { echo "   no JUnit report $dir/report.xml"; ok=0; }
    if [ $ok -eq 1 ]; then
        echo "== $c: ok"; passed=$((passed + 1))
    else
        echo "== $c: FAILED (log: $here/$dir/sim.log)"; failed=$((failed + 1))
    fi
done
echo "($((SECONDS - start)) s)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
