#!/usr/bin/env bash
# Speed of the baser model in a Verilator simulation (tb/bench.sv): the repeater DUT runs
# CLOCKS clocks of back-to-back traffic (frames of 60..1514 octets) five ways:
#   dut     the DUT alone (its input from a generator in SystemVerilog, no DPI call);
#   model   + the TX model driving it;
#   check   + the TX model and the live checker on its output (made with the TX model's
#           handle: it expects the frames the model is given);
#   expect  + the same, each frame also handed over with expect_frame();
#   serdes  + the serdes source (in place of the TX model) and the checker.
# It prints each one's time per clock, wall and CPU (the process's CPU time: steadier than
# wall time on a loaded machine), best of REPEAT runs, and the model's and the checker's own
# cost per clock (the differences, CPU time). The repeater is a toy that costs little per
# clock; the model's share of a real DUT's simulation is these costs over that DUT's time per
# clock (docs/dpi.md, Speed).
#
#   BASER_LIB_DIR=/path/to/dir/with/libbaser examples/dpi-verilator/bench.sh [CLOCKS]
#
# CLOCKS: default 1000000; REPEAT (default 3); BATCH: the models' batch (default 64, the
# package's; 1: a DPI call a clock). BASER_LIB_DIR: default the first of target-capi/release,
# capi/target/release, target/release, capi/target/debug, target/debug that holds libbaser (a
# debug library measures unoptimised Rust: build with cargo build --release for the numbers
# that matter). The bench is built with verilator -O3 and g++ -O2 in
# examples/dpi-verilator/build/bench/.
set -euo pipefail
# (a relative BASER_LIB_DIR is taken from where the script was called)
case "${BASER_LIB_DIR:-}" in ""|/*) ;; *) BASER_LIB_DIR="$PWD/$BASER_LIB_DIR" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"

CLOCKS="${1:-1000000}"
REPEAT="${REPEAT:-3}"
BATCH="${BATCH:-64}"
JOBS="${JOBS:-2}"
VERILATOR="${VERILATOR:-verilator}"
if [ -z "${BASER_LIB_DIR:-}" ]; then
    for d in target-capi/release capi/target/release target/release capi/target/debug target/debug; do
        if [ -f "$repo/$d/libbaser.so" ] || [ -f "$repo/$d/libbaser.a" ]; then BASER_LIB_DIR="$repo/$d"; break; fi
    done
fi
LIB_DIR="$(cd "${BASER_LIB_DIR:-/nonexistent}" 2>/dev/null && pwd)" || { echo "bench.sh: no libbaser found (set BASER_LIB_DIR)" >&2; exit 1; }
if [ -f "$LIB_DIR/libbaser.so" ]; then
    LDLIBS="-L$LIB_DIR -lbaser -Wl,-rpath,$LIB_DIR"
elif [ -f "$LIB_DIR/libbaser.a" ]; then
    LDLIBS="$LIB_DIR/libbaser.a -lpthread -ldl -lm"
else
    echo "bench.sh: no libbaser.so or libbaser.a in $LIB_DIR" >&2; exit 1
fi
case "$LIB_DIR" in
    */debug) echo "bench.sh: note: $LIB_DIR is a debug build of the library" >&2 ;;
esac

dir=build/bench
mkdir -p "$dir"
echo "building $dir/sim ($("$VERILATOR" --version), library $LIB_DIR)"
"$VERILATOR" --cc --exe --build -j "$JOBS" -O3 --top-module bench --prefix Vtb --timescale 1ns/1ps \
    -Mdir "$dir/obj" -o ../sim \
    -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2" \
    "$repo/capi/sv/baser_pkg.sv" "$here/rtl/repeater.sv" "$here/tb/bench.sv" "$here/tb/sim_main.cpp" \
    -LDFLAGS "$LDLIBS" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }

# run MODE: REPEAT runs; leaves the best wall and CPU seconds in $wall and $cpu
run() {
    local mode="$1"
    local i w c
    wall=""
    cpu=""
    for i in $(seq "$REPEAT"); do
        "$dir/sim" +mode="$mode" +cycles="$CLOCKS" +batch="$BATCH" >"$dir/$mode.log" 2>&1 || { cat "$dir/$mode.log"; echo "bench.sh: the $mode run failed" >&2; exit 1; }
        w="$(sed -n 's/^sim: [0-9]* clocks in \([0-9.]*\) s.*/\1/p' "$dir/$mode.log")"
        c="$(sed -n 's/^sim: .*(cpu \([0-9.]*\) s).*/\1/p' "$dir/$mode.log")"
        if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then wall="$w"; fi
        if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu="$c"; fi
    done
    grep -E '^TB: bench: [0-9]' "$dir/$mode.log" | sed "s/^/  $mode: /"
}

run dut;    w_dut=$wall;    c_dut=$cpu
run model;  w_model=$wall;  c_model=$cpu
run check;  w_check=$wall;  c_check=$cpu
run expect; w_expect=$wall; c_expect=$cpu
octets="$(sed -n 's/^TB: bench: .* frames (\([0-9]*\) octets) sent.*/\1/p' "$dir/expect.log")"
run serdes; w_serdes=$wall; c_serdes=$cpu
awk -v n="$CLOCKS" -v rep="$REPEAT" -v batch="$BATCH" -v octets="${octets:-0}" \
    -v wd="$w_dut" -v wm="$w_model" -v wc="$w_check" -v we="$w_expect" -v ws="$w_serdes" \
    -v cd="$c_dut" -v cm="$c_model" -v cc="$c_check" -v ce="$c_expect" -v cs="$c_serdes" 'BEGIN {
    printf "%d clocks, best of %d runs each, batch %d\n", n, rep, batch
    printf "%-32s %12s %12s\n", "", "wall ns/clk", "cpu ns/clk"
    printf "%-32s %12.1f %12.1f\n", "DUT alone", wd / n * 1e9, cd / n * 1e9
    printf "%-32s %12.1f %12.1f\n", "DUT + TX model", wm / n * 1e9, cm / n * 1e9
    printf "%-32s %12.1f %12.1f\n", "DUT + TX model + checker", wc / n * 1e9, cc / n * 1e9
    printf "%-32s %12.1f %12.1f\n", "  ... + expect_frame()", we / n * 1e9, ce / n * 1e9
    printf "%-32s %12.1f %12.1f\n", "DUT + serdes source + checker", ws / n * 1e9, cs / n * 1e9
    printf "the TX model:       %6.1f ns/clock (cpu)\n", (cm - cd) / n * 1e9
    printf "the checker:        %6.1f ns/clock (cpu)\n", (cc - cm) / n * 1e9
    m = (cc - cd) / n * 1e9
    printf "model + checker:    %6.1f ns/clock (cpu): %.1f %% of the simulation of a DUT of 1 us/clock\n", m, 100 * m / (1000 + m)
    per = 0
    if (octets + 0 > 0) per = (ce - cc) * 1e9 / octets
    printf "expect_frame():     %6.1f ns/clock (cpu), %.2f ns an octet handed over (%.1f octets a clock)\n", (ce - cc) / n * 1e9, per, octets / n
    printf "serdes + checker:   %6.1f ns/clock (cpu)\n", (cs - cd) / n * 1e9
}'
