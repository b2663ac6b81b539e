#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each, one after the other (one fuzzer process at a
# time), and fails if any target crashed, panicked, timed out or ran out of memory.
#
#   fuzz/run.sh SECONDS            all targets
#   TARGETS="rx_decode compare" fuzz/run.sh 60
#   SANITIZER=address fuzz/run.sh 20   (default none: the cores forbid unsafe code)
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Seeds come from
# vectors/ (seed.sh); what the fuzzer adds goes to corpus/<target>/ (not committed); a
# crashing input goes to artifacts/<target>/ and its log to target/run-logs/<target>.log.
# Prints per target the executions per second and the total executions from libFuzzer's
# final statistics.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:?usage: fuzz/run.sh SECONDS}
sanitizer=${SANITIZER:-none}
targets=${TARGETS:-$(cargo +nightly fuzz list)}
logs=target/run-logs
mkdir -p "$logs"

./seed.sh
cargo +nightly fuzz build --sanitizer "$sanitizer"

failed=()
summary=$(printf '%-15s %8s %14s %10s %8s  %s' target seconds executions exec/s rss_mb result)
for t in $targets; do
    mkdir -p "corpus/$t" "artifacts/$t"
    log="$logs/$t.log"
    echo "=== fuzzing $t for ${seconds}s"
    status=ok
    if ! cargo +nightly fuzz run --sanitizer "$sanitizer" "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 -timeout=20 \
        -rss_limit_mb=1024 -close_fd_mask=1 >"$log" 2>&1; then
        status=FAILED
        failed+=("$t")
        echo "--- $t failed; the end of $log:"
        grep -v '^#[0-9]' "$log" | tail -40
    fi
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    summary+=$'\n'$(printf '%-15s %8s %14s %10s %8s  %s' "$t" "$seconds" \
        "$(stat number_of_executed_units)" "$(stat average_exec_per_sec)" \
        "$(stat peak_rss_mb)" "$status")
done

echo
echo "$summary"
if ((${#failed[@]})); then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}"
    exit 1
fi
echo "fuzz: all targets ran ${seconds}s without a crash"
