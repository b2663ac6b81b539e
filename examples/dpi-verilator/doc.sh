#!/usr/bin/env bash
# Runs docs/dpi.md's own bench, as a user who copies the page would: the blocks the page marks
# `<!-- doc-test: NAME -->` (tb.sv, sim_main.cpp, run-binary.sh, run-cc.sh) are taken from it
# as they stand and run on rtl/mac_phy.sv saved as mac_phy.sv, in build/doc/CASE/:
#   binary    run-binary.sh, the correct DUT: "TB: PASS"; rx.json and tx.json say pass;
#   cc        run-cc.sh (with sim_main.cpp), the correct DUT: exit 0, "TB: PASS";
#   rx-fault  run-cc.sh, the DUT with `define MAC_PHY_FAULT 1 (a bit flipped in its receive
#             path): exit 1, the frame monitor's $error names the beat, rx.json says fail;
#   tx-fault  MAC_PHY_FAULT 2 (a bit flipped in its transmit path): exit 1, the checker's
#             $error names the block, tx.json says fail.
# Of the commands, only the lines that set BASER= and BASER_LIB= are replaced (by the
# repository and the library found here). Closes with "N passed, M failed"; exits 1 on any
# failure.
#
#   BASER_LIB_DIR=/path/to/dir/with/libbaser examples/dpi-verilator/doc.sh [CASE...]
#
# BASER_LIB_DIR: where libbaser.so is; default target-capi/debug, capi/target/debug (the first
# that holds it).
set -uo pipefail
case "${BASER_LIB_DIR:-}" in ""|/*) ;; *) BASER_LIB_DIR="$PWD/$BASER_LIB_DIR" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
page="$repo/docs/dpi.md"
cd "$here"

if [ -z "${BASER_LIB_DIR:-}" ]; then
    for d in target-capi/debug capi/target/debug target-capi/release capi/target/release; do
        if [ -f "$repo/$d/libbaser.so" ]; then BASER_LIB_DIR="$repo/$d"; break; fi
    done
fi
LIB_DIR="$(cd "${BASER_LIB_DIR:-/nonexistent}" 2>/dev/null && pwd)" || { echo "doc.sh: no libbaser.so found (set BASER_LIB_DIR)" >&2; echo "0 passed, 1 failed"; exit 1; }
[ -f "$LIB_DIR/libbaser.so" ] || { echo "doc.sh: no libbaser.so in $LIB_DIR" >&2; echo "0 passed, 1 failed"; exit 1; }

# block NAME: the fenced block after `<!-- doc-test: NAME -->` in the page
block() {
    awk -v name="$1" '
        $0 == "<!-- doc-test: " name " -->" { want = 1; next }
        want && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }
    ' "$page"
}

base="build/doc"
rm -rf "$base"
mkdir -p "$base"
for b in tb.sv sim_main.cpp run-binary.sh run-cc.sh; do
    block "$b" >"$base/$b"
    if [ ! -s "$base/$b" ]; then
        echo "doc.sh: docs/dpi.md has no block marked doc-test: $b"; echo "0 passed, 1 failed"; exit 1
    fi
done
# the page's commands, with this repository and library
for s in run-binary.sh run-cc.sh; do
    grep -vE '^BASER(_LIB)?=' "$base/$s" >"$base/$s.body"
    { echo "set -e"; echo "BASER='$repo'"; echo "BASER_LIB='$LIB_DIR'"; cat "$base/$s.body"; } >"$base/$s"
    rm "$base/$s.body"
done

# case -> the command run, and the fault define (0: none)
run_of() {
    case "$1" in
        binary) echo "run-binary.sh 0" ;;
        cc) echo "run-cc.sh 0" ;;
        rx-fault) echo "run-cc.sh 1" ;;
        tx-fault) echo "run-cc.sh 2" ;;
        *) return 1 ;;
    esac
}

verdict() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1" 2>/dev/null || echo "none"
}

cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(binary cc rx-fault tx-fault)
passed=0
failed=0
for c in "${cases[@]}"; do
    if ! r="$(run_of "$c")"; then
        echo "== $c: unknown case (binary cc rx-fault tx-fault)"; failed=$((failed + 1)); continue
    fi
    set -- $r
    script="$1"; fault="$2"
    dir="$base/$c"
    mkdir -p "$dir"
    cp "$base/tb.sv" "$base/sim_main.cpp" "$dir/"
    if [ "$fault" = 0 ]; then
        cp rtl/mac_phy.sv "$dir/mac_phy.sv"
    else
        { printf '`define MAC_PHY_FAULT %s\n' "$fault"; cat rtl/mac_phy.sv; } >"$dir/mac_phy.sv"
    fi
    echo "== $c ($script, MAC_PHY_FAULT $fault)"
    (cd "$dir" && bash "../$script") >"$dir/run.log" 2>&1
    rc=$?
    grep -E '^TB:|%Error: .*baser_(checker|frame_monitor):' "$dir/run.log" | cut -c1-240 | sed 's/^/   /'
    ok=1
    rxv="$(verdict "$dir/rx.json")"
    txv="$(verdict "$dir/tx.json")"
    case "$c" in
        binary|cc)
            [ $rc -eq 0 ] || { echo "   exit status $rc (want 0)"; ok=0; }
            grep -q '^TB: PASS' "$dir/run.log" || { echo "   no TB: PASS"; ok=0; }
            [ "$rxv" = pass ] && [ "$txv" = pass ] || { echo "   rx.json: $rxv, tx.json: $txv (want pass, pass)"; ok=0; }
            grep -q '%Error' "$dir/run.log" && { echo "   an %Error on a correct DUT"; ok=0; }
            ;;
        rx-fault)
            [ $rc -eq 1 ] || { echo "   exit status $rc (want 1)"; ok=0; }
            grep -q '^TB: FAIL' "$dir/run.log" || { echo "   no TB: FAIL"; ok=0; }
            grep -qE 'baser_frame_monitor: found at DUT beat [0-9]+ \(time [0-9]+\): the divergence is at beat [0-9]+ \(time [0-9]+\): DUT frame 5 ' "$dir/run.log" \
                || { echo "   no report of the frame monitor on DUT frame 5"; ok=0; }
            [ "$rxv" = fail ] && [ "$txv" = pass ] || { echo "   rx.json: $rxv, tx.json: $txv (want fail, pass)"; ok=0; }
            ;;
        tx-fault)
            [ $rc -eq 1 ] || { echo "   exit status $rc (want 1)"; ok=0; }
            grep -q '^TB: FAIL' "$dir/run.log" || { echo "   no TB: FAIL"; ok=0; }
            grep -qE 'baser_checker: found at DUT block [0-9]+ \(time [0-9]+\): the divergence is at block [0-9]+ \(time [0-9]+\): DUT frame 5 ' "$dir/run.log" \
                || { echo "   no report of the checker on DUT frame 5"; ok=0; }
            [ "$rxv" = pass ] && [ "$txv" = fail ] || { echo "   rx.json: $rxv, tx.json: $txv (want pass, fail)"; ok=0; }
            ;;
    esac
    if [ $ok -eq 1 ]; then
        echo "== $c: ok"; passed=$((passed + 1))
    else
        tail -20 "$dir/run.log"
        echo "== $c: FAILED (log: $here/$dir/run.log)"; failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
