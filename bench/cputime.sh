#!/usr/bin/env bash
# CPU time of a fixed amount of chain work, for comparing two builds by the clock on a noisy
# machine: `baser bench --reps N` runs a chain N times over its mix's 2,000 frames (setting up
# takes about 2 % of N = 300), the two builds take turns, pinned to one CPU, and each run's
# user + system seconds are kept. Prints every run sorted, the best and the median, and B/A.
#
# Instruction counts (bench/instructions.sh) do not see branch mispredictions, cache misses
# or the front end: a change can run fewer instructions and take longer. Check both.
#
# Usage: bench/cputime.sh BASER_A BASER_B [MIX [CHAIN [REPS [RUNS]]]]
#        (defaults: uniform rx 300 8; MIX: min, max, uniform; CHAIN: tx, rx)
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
A=$(realpath "$1")
B=$(realpath "$2")
MIX=${3:-uniform}
CHAIN=${4:-rx}
REPS=${5:-300}
RUNS=${6:-8}
for bin in "$A" "$B"; do
    "$bin" bench --help | grep -q -- --reps || {
        echo "bench/cputime.sh: $bin has no 'bench --reps'" >&2
        exit 2
    }
done
pin=()
if command -v taskset >/dev/null; then
    pin=(taskset -c "$(($(nproc) - 1))")
fi

# One run: user + system seconds.
cpu() {
    local TIMEFORMAT='%U %S'
    { time "${pin[@]}" "$1" bench --reps "$REPS" --mix "$MIX" --chain "$CHAIN" -q >/dev/null; } 2>&1 \
        | awk '{ printf "%.3f\n", $1 + $2 }'
}

a=()
b=()
for _ in $(seq "$RUNS"); do
    a+=("$(cpu "$A")")
    b+=("$(cpu "$B")")
done
printf '%s %s, %s runs of --reps %s, CPU seconds (user + system)\n' "$CHAIN" "$MIX" "$RUNS" "$REPS"
printf '%s\n' "${a[@]}" | sort -n | awk -v name="A $A" -v other="$(printf '%s\n' "${b[@]}" | sort -n | tr '\n' ' ')" '
    { v[NR] = $1; line = line " " $1 }
    END {
        sub(/ $/, "", other); n = split(other, w, " ")
        ma = v[int((NR + 1) / 2)]; mb = w[int((n + 1) / 2)]
        printf "%s:%s\n  best %.3f  median %.3f\n", name, line, v[1], ma
        printf "B: %s\n  best %.3f  median %.3f\n", other, w[1], mb
        printf "B/A: best %.3f  median %.3f\n", w[1] / v[1], mb / ma
    }' | sed "s|^B: |B $B: |"
