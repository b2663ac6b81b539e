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
# wall time on a loaded machine), best of REPEAT interleaved runs, and the model's and the
# checker's own cost per clock (the differences, CPU time), and the three figures for a DUT of
# 1 us a clock. The repeater is a toy that costs little per clock; the model's share of a real
# DUT's simulation is these costs over that DUT's time per clock (docs/dpi.md, Speed). It also
# runs the same DPI calls from C without a simulator (capi/examples/clocks.c): the library's
# own cost; the rest is the SystemVerilog around the calls.
#
#   BASER_LIB_DIR=/path/to/dir/with/libbaser examples/dpi-verilator/bench.sh [CLOCKS]
#
# CLOCKS: default 1000000; REPEAT (default 3): rounds, each running every mode once (best
# of the rounds); BATCH: the models' batch (default 64, the package's; 1: a DPI call a clock);
# INSTR=N: also count instructions per clock under callgrind (N clocks, e.g. 200000; needs
# valgrind); CC: the C compiler (default cc). BASER_LIB_DIR: default the first of
# target-capi/release, capi/target/release, target/release, capi/target/debug, target/debug
# that holds libbaser (a debug library measures unoptimised Rust: build with cargo build
# --release for the numbers that matter). The bench is built with verilator -O3 and g++ -O2 in
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
# the same DPI calls from C, without a simulator: what the library itself costs
"${CC:-cc}" -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -I "$repo/capi/include" \
    "$repo/capi/examples/clocks.c" $LDLIBS -o "$dir/clocks" >>"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }

# The modes run interleaved (each round runs every mode once), so that a change in the
# machine's load touches them alike; each mode's best wall and CPU seconds are kept.
modes="dut model check expect serdes"
declare -A wall cpu
for round in $(seq "$REPEAT"); do
    for mode in $modes; do
        "$dir/sim" +mode="$mode" +cycles="$CLOCKS" +batch="$BATCH" >"$dir/$mode.log" 2>&1 || { cat "$dir/$mode.log"; echo "bench.sh: the $mode run failed" >&2; exit 1; }
        w="$(sed -n 's/^sim: [0-9]* clocks in \([0-9.]*\) s.*/\1/p' "$dir/$mode.log")"
        c="$(sed -n 's/^sim: .*(cpu \([0-9.]*\) s).*/\1/p' "$dir/$mode.log")"
        if [ -z "${wall[$mode]:-}" ] || awk -v a="$w" -v b="${wall[$mode]}" 'BEGIN { exit !(a < b) }'; then wall[$mode]="$w"; fi
        if [ -z "${cpu[$mode]:-}" ] || awk -v a="$c" -v b="${cpu[$mode]}" 'BEGIN { exit !(a < b) }'; then cpu[$mode]="$c"; fi
        [ "$round" = 1 ] && grep -E '^TB: bench: [0-9]' "$dir/$mode.log" | sed "s/^/  $mode: /"
    done
    for k in 0 1; do
        "$dir/clocks" "$CLOCKS" "$k" >"$dir/clocks$k.log" 2>&1 || { cat "$dir/clocks$k.log"; echo "bench.sh: clocks.c failed" >&2; exit 1; }
        c="$(sed -n 's/.*: \([0-9.]*\) ns\/clock (cpu)$/\1/p' "$dir/clocks$k.log")"
        if [ -z "${cpu[c$k]:-}" ] || awk -v a="$c" -v b="${cpu[c$k]}" 'BEGIN { exit !(a < b) }'; then cpu[c$k]="$c"; fi
    done
done
w_dut=${wall[dut]};       c_dut=${cpu[dut]}
w_model=${wall[model]};   c_model=${cpu[model]}
w_check=${wall[check]};   c_check=${cpu[check]}
w_expect=${wall[expect]}; c_expect=${cpu[expect]}
w_serdes=${wall[serdes]}; c_serdes=${cpu[serdes]}
octets="$(sed -n 's/^TB: bench: .* frames (\([0-9]*\) octets) sent.*/\1/p' "$dir/expect.log")"
awk -v n="$CLOCKS" -v rep="$REPEAT" -v batch="$BATCH" -v octets="${octets:-0}" \
    -v wd="$w_dut" -v wm="$w_model" -v wc="$w_check" -v we="$w_expect" -v ws="$w_serdes" \
    -v cd="$c_dut" -v cm="$c_model" -v cc="$c_check" -v ce="$c_expect" -v cs="$c_serdes" 'BEGIN {
    printf "%d clocks, best of %d interleaved runs each, batch %d\n", n, rep, batch
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
    printf "a DUT of 1 us/clock: alone 1.000, + TX model %.4f, + TX model + checker %.4f us/clock\n", 1 + (cm - cd) / n * 1e6, 1 + m / 1000
    per = 0
    if (octets + 0 > 0) per = (ce - cc) * 1e9 / octets
    printf "expect_frame():     %6.1f ns/clock (cpu), %.2f ns an octet handed over (%.1f octets a clock)\n", (ce - cc) / n * 1e9, per, octets / n
    printf "serdes + checker:   %6.1f ns/clock (cpu)\n", (cs - cd) / n * 1e9
}'
echo "the same DPI calls from C (capi/examples/clocks.c, no simulator): TX model ${cpu[c0]}, + checker ${cpu[c1]} ns/clock (cpu)"

# INSTR=N: also the instructions per clock of each mode under valgrind's callgrind (N clocks;
# repeatable on a loaded machine, where time is not), and the model's and the checker's.
if [ -n "${INSTR:-}" ]; then
    command -v valgrind >/dev/null || { echo "bench.sh: INSTR needs valgrind" >&2; exit 1; }
    declare -A ir
    for mode in dut model check; do
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/sim" +mode="$mode" +cycles="$INSTR" +batch="$BATCH" >"$dir/$mode.cg.log" 2>&1
        ir[$mode]="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/$mode.cg.log")"
    done
    for k in 0 1; do
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/clocks" "$INSTR" "$k" >"$dir/clocks$k.cg.log" 2>&1
        ir[c$k]="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/clocks$k.cg.log")"
    done
    awk -v n="$INSTR" -v d="${ir[dut]}" -v m="${ir[model]}" -v c="${ir[check]}" -v c0="${ir[c0]}" -v c1="${ir[c1]}" 'BEGIN {
        printf "callgrind, %d clocks: instructions a clock: DUT alone %.0f, + TX model %.0f, + checker %.0f\n", n, d / n, m / n, c / n
        printf "the TX model:       %6.0f instructions/clock\n", (m - d) / n
        printf "the checker:        %6.0f instructions/clock\n", (c - m) / n
        printf "model + checker:    %6.0f instructions/clock\n", (c - d) / n
        printf "from C (clocks.c):  TX model %.0f, + checker %.0f instructions/clock (the whole program)\n", c0 / n, c1 / n
    }'
fi
