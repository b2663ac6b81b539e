#!/usr/bin/env bash
# Benchmark of `baser wire --topspeed` against `tcpreplay --topspeed` on one veth pair.
#
# Both push the same pcap out of one end of a veth pair inside a private network namespace
# (baser-bench-<pid>); baser also captures every frame on the other end and verifies it. Prints
# frames/s of each at 64 and 1514 octets (pcap record length, without FCS) and the ratio, on
# the plain veth pair and again with the receiving side steered to another CPU (RPS).
# When dumpcap (Wireshark's capture engine) is installed, tcpreplay runs a second time with
# dumpcap capturing the far end to /dev/null on baser's capture CPU: the same work as baser's
# but the judging, so that the kernel's cost of capturing is in both figures of that ratio.
#
# Needs root, iproute2, tcpreplay and python3 (dumpcap optional). Builds baser in release mode.
# Usage: [RUNS=5] bench/wire.sh [FRAMES_PER_RUN]   (default 1000000 at 64 octets, 200000 at
# 1514). Each figure is the median of RUNS runs, the three senders taking turns; "not matched"
# and "capture dropped" are summed over the runs (every frame must be captured and judged).
set -euo pipefail
cd "$(dirname "$0")/.."

N64=${1:-1000000}
RUNS=${RUNS:-5}
N1514=$(( N64 / 5 ))
NS="baser-bench-$$"
A="bsrb$$a"
B="bsrb$$b"
TMP=$(mktemp -d)
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

command -v tcpreplay >/dev/null || { echo "bench/wire.sh: needs tcpreplay (apt-get install tcpreplay)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench/wire.sh: needs root (network namespace, raw sockets)" >&2; exit 2; }

cargo build --release -q -p testbench
BASER=$(pwd)/target/release/baser

ip netns add "$NS"
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$NS" link add "$A" type veth peer name "$B"
ip -n "$NS" link set "$A" up
ip -n "$NS" link set "$B" up

# 1000 distinct frames of LEN octets: DA 02:..:02, SA 02:..:01, EtherType 0x88b5, index, pattern.
mkpcap() {
    python3 - "$1" "$2" <<'EOF'
import struct, sys
length, out = int(sys.argv[1]), sys.argv[2]
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i in range(1000):
        d = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xB5]) + struct.pack(">I", i)
        d += bytes((i * 31 + j * 7) & 255 for j in range(length - len(d)))
        f.write(struct.pack("<IIII", 0, i, len(d), len(d)) + d)
EOF
}

# With two CPUs or more, each tool sends from CPU 0; baser's capture thread runs on CPU 1.
PIN=() TASKSET=() CAPSET=()
if [ "$(nproc)" -ge 2 ]; then
    PIN=(--pin 0,1)
    command -v taskset >/dev/null && TASKSET=(taskset -c 0) CAPSET=(taskset -c 1)
fi
DUMPCAP=$(command -v dumpcap || true)

# tcpreplay at top speed from the sending CPU; prints its frames/s.
replay() {
    ip netns exec "$NS" "${TASKSET[@]}" tcpreplay --intf1="$A" --topspeed --preload-pcap \
        --loop="$2" "$1" 2>&1 | sed -n 's/.*Rated:.* \([0-9.]*\) pps.*/\1/p'
}

# tcpreplay while dumpcap captures every frame on the far end; prints "PPS RECEIVED DROPPED".
replay_captured() {
    local pcap=$1 loops=$2 log="$TMP/dumpcap.log" pid pps i
    ip netns exec "$NS" "${CAPSET[@]}" "$DUMPCAP" -q -i "$B" -B 128 -w /dev/null >"$log" 2>&1 &
    pid=$!
    # It says "Capturing on" a moment before its capture starts.
    for i in $(seq 100); do grep -q "Capturing on" "$log" && break; sleep 0.05; done
    sleep 1
    pps=$(replay "$pcap" "$loops")
    sleep 0.5
    kill -INT "$pid"
    wait "$pid" || true
    # "Packets received/dropped on interface 'B': 600000/0 (...)"
    echo "${pps:-0} $(sed -n "s|.*received/dropped on interface.*: \([0-9]*\)/\([0-9]*\) .*|\1 \2|p" "$log")"
}

run() {
    local len=$1 count=$2 loops=$(( $2 / 1000 ))
    local pcap="$TMP/f$len.pcap"
    mkpcap "$len" "$pcap"
    local tr=() tc=() k
    # The three senders take turns, RUNS times, so that a slow spell of the machine hits all.
    for k in $(seq "$RUNS"); do
        tr+=("$(replay "$pcap" "$loops")")
        [ -n "$DUMPCAP" ] && tc+=("$(replay_captured "$pcap" "$loops" | tr ' ' ,)")
        ip netns exec "$NS" "$BASER" -q wire "$pcap" --tx "$A" --rx "$B" --topspeed --loop "$loops" \
            --timeout-ms 2000 "${PIN[@]}" --json "$TMP/r$len-$k.json" || true
        # The transmit ring too, for comparison (the default on a veth is sendmmsg).
        ip netns exec "$NS" "$BASER" -q wire "$pcap" --tx "$A" --rx "$B" --topspeed --loop "$loops" \
            --timeout-ms 2000 "${PIN[@]}" --tx-path ring --json "$TMP/q$len-$k.json" || true
    done
    python3 - "$TMP" "$len" "$RUNS" "$(( loops * 1000 ))" "${tc[*]:-}" "${tr[@]}" <<'EOF'
import json, statistics, sys
tmp, length, runs, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
tc = [[float(v or 0) for v in r.split(",")] + [0, 0] for r in sys.argv[5].split()]
tr = [float(x or 0) for x in sys.argv[6:]]
trm = statistics.median(tr)
tcm = statistics.median(r[0] for r in tc) if tc else 0
if tc:
    got, lost = sum(r[1] for r in tc), sum(r[2] for r in tc)
    print(f"{length:>5} octets: tcpreplay while dumpcap captures {tcm:>8.0f} frames/s "
          f"({min(r[0] for r in tc):.0f}..{max(r[0] for r in tc):.0f}), dumpcap received {got:.0f} "
          f"of {count * len(tc)} ({lost:.0f} dropped in its ring, {count * len(tc) - got - lost:.0f} before it)")
for prefix in ("r", "q"):
    reps = [json.load(open(f"{tmp}/{prefix}{length}-{k}.json")) for k in range(1, runs + 1)]
    pps = [r["tx_pps"] for r in reps]
    unmatched = sum(r["counts"]["expected"] - r["counts"]["matched"] for r in reps)
    dropped = sum(r["capture_dropped"] for r in reps)
    paused = statistics.median(r["capture_wait_ms"] for r in reps)
    m = statistics.median(pps)
    print(f"{length:>5} octets: baser {m:>8.0f} frames/s ({min(pps):.0f}..{max(pps):.0f}, {reps[0]['tx_path']:>8}), "
          f"not matched {unmatched}, capture dropped {dropped}, paused {paused:.0f} ms; "
          f"tcpreplay {trm:>8.0f} ({min(tr):.0f}..{max(tr):.0f}); ratio of medians {m / trm if trm else float('nan'):.2f}"
          + (f", to tcpreplay with dumpcap {m / tcm:.2f}" if tcm else ""))
EOF
}

echo "baser wire vs tcpreplay on veth ($(nproc) CPUs, kernel $(uname -r))"
echo "-- plain veth: the receiving side's softirq runs on the sending CPU"
run 64 "$N64"
run 1514 "$N1514"
# On a NIC the receive side runs where the receive queue's interrupt is taken, not on the
# sending CPU. Receive packet steering on the capturing end of the veth does the same here;
# both tools are measured in this setting.
RPS=/sys/class/net/$B/queues/rx-0/rps_cpus
if [ "$(nproc)" -ge 2 ] && ip netns exec "$NS" test -w "$RPS"; then
    ip netns exec "$NS" sh -c "echo 2 > $RPS"
    echo "-- receive side steered to CPU 1 (RPS on $B), as a NIC's receive interrupt would be"
    run 64 "$N64"
    run 1514 "$N1514"
fi
