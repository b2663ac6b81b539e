#!/usr/bin/env bash
# Mutation testing of the cores with cargo-mutants: every mutant of pcs-core and mac-core (or
# of the files given, or of the lines a change touched) is built and its core's own tests run
# against it; a mutant that no test catches is a hole in the tests. Equivalent mutants are
# excluded, each with its reason, in .cargo/mutants.toml (which also holds the settings:
# the core's own tests, profile.mutants, timeouts); docs/testing.md has the scores.
#
#   scripts/mutants.sh                      every mutant of both cores (about an hour on 2 cores)
#   scripts/mutants.sh pcs-core/src/ber.rs  the mutants of these files
#   scripts/mutants.sh --diff REV           only mutants on lines changed since REV (CI)
#
# Writes mutants.out/ (cargo-mutants' report) and prints the score per file: caught, missed,
# timeouts, unviable, and the viable caught share. Exit status: cargo-mutants' (0 all caught,
# 2 some missed, 3 timeouts).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null 2>&1 || cargo install cargo-mutants --locked

args=(--package pcs-core --package mac-core --no-shuffle
      --jobs "${MUTANTS_JOBS:-2}")
case "${1:-}" in
    --diff)
        rev=${2:?usage: scripts/mutants.sh --diff REV}
        git diff "$rev" -- pcs-core/src mac-core/src > mutants.diff
        if [ ! -s mutants.diff ]; then
            echo "mutants: no core source changed since $rev"
            echo "0 passed, 0 failed"
            exit 0
        fi
        args+=(--in-diff mutants.diff)
        ;;
    "") ;;
    *)
        for f in "$@"; do args+=(--file "$f"); done
        ;;
esac

status=0
rm -rf mutants.out mutants.out.old
# A mutant only needs a failing test, not the smallest failing input: without shrinking, a
# proptest that catches one fails at once instead of running into the timeout.
export PROPTEST_MAX_SHRINK_ITERS=0
cargo mutants "${args[@]}" || status=$?
# 0 all caught, 2 some missed, 3 timeouts; anything else (1 bad usage or an internal error such
# as a full disk, 4 the unmutated tree fails its tests) means no verdict at all.
case $status in
    0|2|3) ;;
    *)
        echo "mutants: cargo-mutants itself failed (exit $status), no mutant was judged; free disk: $(df -h --output=avail . | tail -1 | tr -d ' ')" >&2
        exit $status
        ;;
esac

# Score per file from the outcome lists.
python3 - <<'PY'
import collections, json, os
path = "mutants.out/outcomes.json"
if not os.path.exists(path):
    print("mutants: none to test (the changed lines hold no mutable code)")
    raise SystemExit(0)
data = json.load(open(path))
per = collections.defaultdict(collections.Counter)
for o in data.get("outcomes", []):
    scenario = o.get("scenario")
    if not isinstance(scenario, dict) or "Mutant" not in scenario:
        continue
    f = scenario["Mutant"]["file"]
    per[f][o["summary"]] += 1
print(f"{'file':40} {'caught':>7} {'missed':>7} {'timeout':>8} {'unviable':>9} {'score':>7}")
tc = tv = 0
for f in sorted(per):
    c = per[f]
    caught, missed, to, unv = c["CaughtMutant"], c["MissedMutant"], c["Timeout"], c["Unviable"]
    viable = caught + missed + to
    tc += caught + to
    tv += viable
    score = f"{100 * (caught + to) / viable:.1f}%" if viable else "-"
    print(f"{f:40} {caught:7} {missed:7} {to:8} {unv:9} {score:>7}")
print(f"{'all':40} {'':7} {'':7} {'':8} {'':9} {100 * tc / tv if tv else 100:6.1f}%")
PY
missed=$(cat mutants.out/missed.txt 2>/dev/null | wc -l || true)
echo "mutants missed: $missed (list: mutants.out/missed.txt)"
exit $status
