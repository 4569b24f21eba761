#!/usr/bin/env bash
# `seekprobe compare --qualify` over a fleet's worth of saved runs: 1,000 `-t` runs
# in under 2 s and 512 MiB (issue 15). A benchmark, not a test: run it by hand.
#
#   benches/compare_fleet.sh            # N=1000 runs, 5 timed rounds (ROUNDS=…)
#
# Setup: one `-t` run of the simulated 7200 rpm drive is saved with --json-file and
# varied by benches/compare_fleet.py into N runs (each disk its own name, seed and
# serial, every latency scaled by a factor drawn between 0.97 and 1.03, so that
# every figure differs; one run in 50 is a 25% slower drive, which fails). Then
# `compare --qualify` reads them all, under /usr/bin/time -v: the wall time, the
# CPU time (user + system) and the peak resident memory of each round; the medians
# of wall and CPU time, the largest peak, and PASS/MISS against the targets (median
# wall time under 2 s, peak under 512 MiB). Needs python3 and /usr/bin/time (Debian: apt-get install time).
set -euo pipefail
N=${N:-1000}
ROUNDS=${ROUNDS:-5}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[ -x /usr/bin/time ] || { echo "compare_fleet.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
cargo build --release --locked --quiet
BIN=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/seekprobe
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN" -q -t --json-file "$WORK/one.json" 'sim:hdd?seed=1' >/dev/null 2>&1
python3 benches/compare_fleet.py "$WORK/one.json" "$WORK/runs" "$N"
echo "compare_fleet.sh: $N runs, $(du -sh "$WORK/runs" | cut -f1) of JSON" >&2
walls=() ; rsss=() ; cpus=()
for r in $(seq 1 "$ROUNDS"); do
    set +e
    /usr/bin/time -v "$BIN" compare --qualify "$WORK"/runs/*.json >"$WORK/out.txt" 2>"$WORK/time.txt"
    code=$?
    set -e
    [ "$code" = 3 ] || { echo "compare exited $code, expected 3 (some drives fail)" >&2; cat "$WORK/time.txt" >&2; exit 1; }
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$WORK/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
    cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$WORK/time.txt")
    echo "round $r: ${wall} s wall, ${cpu} s CPU, peak RSS $((rss / 1024)) MiB" >&2
    walls+=("$wall"); rsss+=("$rss"); cpus+=("$cpu")
done
grep -m1 "Qualification:" "$WORK/out.txt" >&2
python3 - "$N" "${walls[*]}" "${rsss[*]}" "${cpus[*]}" <<'PY'
import statistics, sys
n = int(sys.argv[1])
walls, rsss, cpus = ([float(x) for x in a.split()] for a in sys.argv[2:5])
w, m, c = statistics.median(walls), max(rsss) / 1024, statistics.median(cpus)
print(f"| {n} saved -t runs | {w:.2f} s ({min(walls):.2f}-{max(walls):.2f}) | {c:.2f} s | {m:.0f} MiB | "
      f"{'PASS' if w < 2 else 'MISS'} (< 2 s), {'PASS' if m < 512 else 'MISS'} (< 512 MiB) |")
PY
