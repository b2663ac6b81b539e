#!/usr/bin/env bash
# The conformance catalogue on the example DUT (../rtl) through the DPI-C package, under
# Verilator (docs/conformance.md, "SystemVerilog"): `baser gen --suite` writes the suite,
# conf_bench (bench.sv) replays each case into the DUT (receive cases into its serdes input,
# transmit cases into its AXI-stream input) and the model judges it. The correct DUT must pass
# every case; each planted bug must fail the case that targets it, by name. One Verilator
# build (bugs.sv) holds the correct DUT, the same as a 25G PCS on the 25G suite, and the eight
# bug variants, each with its bench.
#
#   BASER=/path/to/baser BASER_LIB_DIR=/dir/with/libbaser examples/conformance/dpi/run.sh [good BUG_...]
#
# BASER: the baser command (default: `baser` on PATH, else target/debug/baser of the repo).
# BASER_LIB_DIR: where libbaser.a (or .so) is (default: capi/target/debug, else target-capi/debug).
# Build products, the suite and the reports go to $BUILD (default examples/conformance/dpi/build).
# Closes with "N passed, M failed" (one per DUT); exits 1 on any failure. Reports (JSON,
# JUnit) per DUT and case in $BUILD/report/.
set -uo pipefail
case "${BASER_LIB_DIR:-}" in ""|/*) ;; *) BASER_LIB_DIR="$PWD/$BASER_LIB_DIR" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
build="${BUILD:-$here/build}"
JOBS="${JOBS:-2}"

BASER="${BASER:-$(command -v baser || echo "$repo/target/debug/baser")}"
lib="${BASER_LIB_DIR:-}"
if [ -z "$lib" ]; then
    lib="$repo/capi/target/debug"
    [ -f "$lib/libbaser.a" ] || lib="$repo/target-capi/debug"
fi
if [ -f "$lib/libbaser.a" ]; then
    LDLIBS="$lib/libbaser.a -lpthread -ldl -lm"
elif [ -f "$lib/libbaser.so" ]; then
    LDLIBS="-L$lib -lbaser -Wl,-rpath,$lib"
else
    echo "run.sh: no libbaser.a or libbaser.so in $lib (cd capi && cargo build; or set BASER_LIB_DIR)" >&2
    echo "0 passed, 1 failed"; exit 1
fi
[ -x "$BASER" ] || { echo "run.sh: no baser command at $BASER (set BASER)" >&2; echo "0 passed, 1 failed"; exit 1; }

# build -> the case that must catch it (good: every case must pass)
bugs=(BUG_GOOD_FLAG BUG_OS_MASK BUG_IFG8_DROP BUG_BER_15 BUG_NO_DIC BUG_NO_RF BUG_PRBS_HDR
      BUG_PRBS_TX_HDR)
builds=(good good-25g "${bugs[@]}")
declare -A target=([good]="" [good-25g]="" [BUG_GOOD_FLAG]=rx-terminate-lanes [BUG_OS_MASK]=rx-ordered-set-4b
                   [BUG_IFG8_DROP]=rx-ifg [BUG_BER_15]=rx-hi-ber-15 [BUG_NO_DIC]=tx-dic
                   [BUG_NO_RF]=tx-link-fault [BUG_PRBS_HDR]=rx-prbs31 [BUG_PRBS_TX_HDR]=tx-prbs31)

mkdir -p "$build/report"
start=$SECONDS
"$BASER" gen --suite "$build/suite" --quiet || { echo "0 passed, 1 failed"; exit 1; }
# the 25G suite, for the DUT built as a 25GBASE-R PCS with a 1000-block BER window
"$BASER" gen --suite "$build/suite25" --rate 25g --ber-window-blocks 1000 --quiet \
    || { echo "0 passed, 1 failed"; exit 1; }
# the 25G DUT: the RTL with its modules renamed conf_G25_ and the 25G BER monitor's parameters
sed -e "s/\bconf_/conf_G25_/g" -e "s/BER_WINDOW = 19531,/BER_WINDOW = 1000,/" \
    -e "s/BER_THRESHOLD = 16,/BER_THRESHOLD = 97,/" \
    "$here/../rtl/conf_dut.v" "$here/../rtl/conf_pcs.v" "$here/../rtl/conf_mac.v" \
    "$here/../rtl/conf_prbs31.v" >"$build/conf_G25.v"
grep -q "BER_THRESHOLD = 97," "$build/conf_G25.v" || { echo "run.sh: no 25G parameters in conf_dut.v"; echo "0 passed, 1 failed"; exit 1; }
variants=("$build/conf_G25.v")
mkdir -p "$build/report/good-25g"
# each bug: the RTL with its define set and its modules renamed conf_BUG_*_, one file
for b in "${bugs[@]}"; do
    { echo "\`define $b"; cat "$here/../rtl/conf_dut.v" "$here/../rtl/conf_pcs.v" "$here/../rtl/conf_mac.v" "$here/../rtl/conf_prbs31.v"; echo "\`undef $b"; } \
        | sed "s/\bconf_/conf_${b}_/g" >"$build/conf_$b.v"
    variants+=("$build/conf_$b.v")
    mkdir -p "$build/report/$b"
done
mkdir -p "$build/report/good"
# one build: all ten DUTs, each with its bench (bugs.sv); -O0: the C++ compile is most of it
if ! verilator --cc --exe --build -j "$JOBS" --top-module tb --timescale 1ns/1ps \
        -Wno-fatal -Wno-lint -Wno-style -I"$here" -Mdir "$build/obj" -o ../sim \
        -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" \
        "$repo/capi/sv/baser_pkg.sv" "$here/../rtl/conf_dut.v" "$here/../rtl/conf_pcs.v" \
        "$here/../rtl/conf_mac.v" "$here/../rtl/conf_prbs31.v" "${variants[@]}" "$here/bench.sv" "$here/bugs.sv" \
        "$repo/examples/dpi-verilator/tb/sim_main.cpp" -LDFLAGS "$LDLIBS" >"$build/build.log" 2>&1; then
    tail -20 "$build/build.log"; echo "FAILED (build, see $build/build.log)"
    echo "0 passed, 1 failed"; exit 1
fi
echo "(built in $((SECONDS - start)) s)"
"$build/sim" +suite="$build/suite" +suite25="$build/suite25" +report="$build/report" >"$build/sim.log" 2>&1
grep -E '%Error|%Fatal|^sim:' "$build/sim.log"
chosen=("$@")
[ ${#chosen[@]} -eq 0 ] && chosen=("${builds[@]}")
passed=0
failed=0
for b in "${chosen[@]}"; do
    if [ -z "${target[$b]+x}" ]; then
        echo "$b: unknown build (${builds[*]})"; failed=$((failed + 1)); continue
    fi
    t="${target[$b]}"
    if [ -z "$t" ]; then
        grep "^TB: $b: " "$build/sim.log" | sed 's/^TB: /  /'
        if grep -q "^TB: $b: .* cases pass" "$build/sim.log" && ! grep -q "^TB: $b: .* fail" "$build/sim.log"; then
            echo "$b: every case passes"; passed=$((passed + 1))
        else
            echo "$b: FAILED (log: $build/sim.log)"; failed=$((failed + 1))
        fi
    elif first="$(grep -m1 "^TB: $b: $t fail: " "$build/sim.log")"; then
        echo "$b: caught by $t: ${first#TB: $b: $t fail: }"; passed=$((passed + 1))
    else
        echo "$b: NOT caught by $t (log: $build/sim.log)"; failed=$((failed + 1))
    fi
done
echo "($((SECONDS - start)) s)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
