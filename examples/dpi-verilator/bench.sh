#!/usr/bin/env bash
# Speed of the DPI-C test bench: simulated clocks per second of a long run of back-to-back
# traffic (the correct repeater, random frame lengths 60..1514), with the live checker and
# without it (+nocheck: no checker calls, the TX model and the repeater still run), and the
# checker's cost in ns per clock.
#
#   BASER_LIB_DIR=/path/to/dir/with/libbaser examples/dpi-verilator/bench.sh [CLOCKS]
#
# CLOCKS: default 200000; each variant runs REPEAT (default 3) times, the best counts. BASER_LIB_DIR: default the first of capi/target/release,
# target/release, capi/target/debug, target/debug that holds libbaser (a debug library measures
# unoptimised Rust: build with cargo build --release for the numbers that matter). The bench
# is built with verilator -O3 and g++ -O2 in examples/dpi-verilator/build/bench/.
set -euo pipefail
# (a relative BASER_LIB_DIR is taken from where the script was called)
case "${BASER_LIB_DIR:-}" in ""|/*) ;; *) BASER_LIB_DIR="$PWD/$BASER_LIB_DIR" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"

CLOCKS="${1:-200000}"
REPEAT="${REPEAT:-3}"
JOBS="${JOBS:-2}"
VERILATOR="${VERILATOR:-verilator}"
if [ -z "${BASER_LIB_DIR:-}" ]; then
    for d in capi/target/release target/release capi/target/debug target/debug; do
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
"$VERILATOR" --cc --exe --build -j "$JOBS" -O3 --top-module tb --timescale 1ns/1ps \
    -Mdir "$dir/obj" -o ../sim -GFAULT=0 \
    -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2" \
    "$repo/capi/sv/baser_pkg.sv" "$here/rtl/repeater.sv" "$here/tb/tb.sv" "$here/tb/sim_main.cpp" \
    -LDFLAGS "$LDLIBS" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }

# run NAME PLUSARGS...: REPEAT runs; prints the bench's lines of each, leaves the best wall
# seconds in $secs
run() {
    local name="$1"; shift
    local i t
    secs=""
    for i in $(seq "$REPEAT"); do
        "$dir/sim" +cycles="$CLOCKS" +norx "$@" >"$dir/$name.log" 2>&1 || { cat "$dir/$name.log"; echo "bench.sh: the $name run failed" >&2; exit 1; }
        [ "$i" -eq 1 ] && grep -E '^TB: bench' "$dir/$name.log" | sed "s/^/  $name: /"
        grep -E '^sim:' "$dir/$name.log" | sed "s/^/  $name: /"
        t="$(sed -n 's/^sim: [0-9]* clocks in \([0-9.]*\) s.*/\1/p' "$dir/$name.log")"
        if [ -z "$secs" ] || awk -v a="$t" -v b="$secs" 'BEGIN { exit !(a < b) }'; then secs="$t"; fi
    done
}

run nocheck +nocheck
t_off="$secs"
run check
t_on="$secs"
awk -v n="$CLOCKS" -v rep="$REPEAT" -v on="$t_on" -v off="$t_off" 'BEGIN {
    printf "%d clocks, best of %d runs each\n", n, rep
    printf "with the checker:    %10.0f clocks/s (%.0f ns/clock)\n", n / on, on / n * 1e9
    printf "without the checker: %10.0f clocks/s (%.0f ns/clock)\n", n / off, off / n * 1e9
    printf "checker cost:        %10.0f ns/clock\n", (on - off) / n * 1e9
}'
