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
    # (Not `grep -q`: it stops reading at the match, and with pipefail the help's writer,
    # cut off, failed the check now and then.)
    "$bin" bench --help | grep -- --reps >/dev/null || {
        echo "bench/cputime.sh: $bin has no 'bench --reps'" >&2
        exit 2
    }
done
pin=()
if command -v taskset >/dev/null; then
    pin=(taskset -c "$(($(nproc) - 1))")
fi

# One run: user + system seconds (bash's `time` writes to the shell's stderr; baser's own
# stderr goes to fd 3, the terminal's).
cpu() {
    local TIMEFORMAT='%U %S'
    { time "${pin[@]}" "$1" bench --reps "$REPS" --mix "$MIX" --chain "$CHAIN" -q >/dev/null 2>&3; } \
        3>&2 2>&1 | awk '{ printf "%.3f\n", $1 + $2 }'
}

# The runs of one build sorted, then its best and its median: "runs|best median".
stats() {
    printf '%s\n' "$@" | sort -n | awk '
        { v[NR] = $1; line = line (NR > 1 ? " " : "") $1 }
        END { print line "|" v[1], v[int((NR + 1) / 2)] }'
}

a=()
b=()
for _ in $(seq "$RUNS"); do
    a+=("$(cpu "$A")")
    b+=("$(cpu "$B")")
done
IFS='|' read -r runs_a best_med_a < <(stats "${a[@]}")
IFS='|' read -r runs_b best_med_b < <(stats "${b[@]}")
read -r best_a med_a <<<"$best_med_a"
read -r best_b med_b <<<"$best_med_b"
printf '%s %s, %s runs of --reps %s, CPU seconds (user + system)\n' "$CHAIN" "$MIX" "$RUNS" "$REPS"
printf 'A %s: %s\n  best %s  median %s\n' "$A" "$runs_a" "$best_a" "$med_a"
printf 'B %s: %s\n  best %s  median %s\n' "$B" "$runs_b" "$best_b" "$med_b"
awk -v a="$best_a" -v b="$best_b" -v ma="$med_a" -v mb="$med_b" \
    'BEGIN { printf "B/A: best %.3f  median %.3f\n", b / a, mb / ma }'
