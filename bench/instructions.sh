#!/usr/bin/env bash
# Instructions the commands execute (valgrind's callgrind), for comparing two builds on a
# machine too noisy for wall-clock A/B runs: the count is the same from run to run, whatever
# else the machine is doing. It does not see cache misses or the kernel's copies, so it
# complements `baser bench` and the criterion benches; it does not replace them.
#
# Usage: bench/instructions.sh [BASER [BASER_B]]   (default: target/release/baser, built here)
# Prints, per command, the instructions of each binary (and B/A), on 20,000 frames of a uniform
# 60..1514-octet mix and 40,000 of 60 octets (pcap record lengths, without FCS), written to a
# scratch folder that is removed at the end; then, per chain of `baser bench` and mix, the
# instructions per block (`baser bench --reps`: 15 runs less 5 runs over the mix's 2,000
# frames, divided by the blocks of the 10 runs between, so that setting up is left out).
# Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }

if [ $# -eq 0 ]; then
    cargo build --release -q -p testbench
    set -- "$(pwd)/target/release/baser"
fi
A=$(realpath "$1")
B=$([ $# -ge 2 ] && realpath "$2" || true)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"

python3 - <<'EOF'
import random, struct
random.seed(1)
mixes = {"uniform": [random.randint(60, 1514) for _ in range(20000)], "64-octet": [60] * 40000}
for name, lens in mixes.items():
    with open(name + ".pcap", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, n in enumerate(lens):
            d = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xB5])
            d += bytes((k ^ i) & 0xFF for k in range(n - 14))
            f.write(struct.pack("<IIII", i, 0, n, n) + d)
EOF
for m in uniform 64-octet; do
    "$A" encode "$m.pcap" --bits "$m.bits" --b66 "$m.b66" -q
done

count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" -q 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf '%-32s %-9s %14s' command mix "A"
[ -n "$B" ] && printf ' %14s %7s' "B" "B/A"
printf '\n'
for m in uniform 64-octet; do
    for c in "encode $m.pcap --bits out.bits" "decode $m.bits --pcap out.pcap" "decode $m.b66 --pcap out.pcap"; do
        # shellcheck disable=SC2086
        a=$(count "$A" $c)
        printf '%-32s %-9s %14s' "${c%% out*}" "$m" "$a"
        if [ -n "$B" ]; then
            # shellcheck disable=SC2086
            b=$(count "$B" $c)
            printf ' %14s %7s' "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')"
        fi
        printf '\n'
    done
done

# Blocks a chain handles in REPS runs: BIN REPS MIX CHAIN (the number before "blocks"; a
# mix's name can hold spaces: "uniform 64..1518").
blocks() {
    "$1" bench --reps "$2" --mix "$3" --chain "$4" | sed -n 's/.* \([0-9]*\) blocks$/\1/p'
}

# Instructions per block of a chain: BIN MIX CHAIN ("n/a" for a build without `bench --reps`).
per_block() {
    local i5 i15 b5 b15
    if ! "$1" bench --help | grep -- --reps >/dev/null; then
        printf 'n/a'
        return
    fi
    i5=$(count "$1" bench --reps 5 --mix "$2" --chain "$3")
    i15=$(count "$1" bench --reps 15 --mix "$2" --chain "$3")
    b5=$(blocks "$1" 5 "$2" "$3")
    b15=$(blocks "$1" 15 "$2" "$3")
    awk -v a="$i5" -v b="$i15" -v x="$b5" -v y="$b15" 'BEGIN { printf "%.2f", (b - a) / (y - x) }'
}

printf '\n%-32s %-9s %14s' "chain: instructions per block" mix "A"
[ -n "$B" ] && printf ' %14s %7s' "B" "B/A"
printf '\n'
for m in uniform min max; do
    for c in tx rx; do
        a=$(per_block "$A" $m $c)
        printf '%-32s %-9s %14s' "$c" "$m" "$a"
        if [ -n "$B" ]; then
            b=$(per_block "$B" $m $c)
            printf ' %14s %7s' "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", b / a; else printf "-" }')"
        fi
        printf '\n'
    done
done
