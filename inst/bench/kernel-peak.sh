#!/usr/bin/env bash
# The core's peak and each distance kernel's share of it (issue 57):
# builds inst/bench/kernel-peak.c with the driver's flags and runs it,
# pinned to one CPU, ROUNDS times (the fastest of each kernel over the
# rounds is what other tenants slowed least).
#
#   bash inst/bench/kernel-peak.sh OUT [N] [ROUNDS] [CPU]
#
# Writes OUT/kernel-peak.csv (every round, round in the first column) and
# OUT/kernel-peak-machine.txt (machine, load before and after).
set -euo pipefail
out=$1
n=${2:-2000}
rounds=${3:-3}
cpu=${4:-0}
here=$(cd "$(dirname "$0")" && pwd)
build=${TMPDIR:-/tmp}/facloc-kernel-peak-build
. "$here/driver-machine.sh"
driver_start "$out" kernel-peak "$build" "load before: $(cut -d' ' -f1-3 /proc/loadavg)" \
  "git: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "run: kernel-peak $n 2, $rounds rounds pinned to CPU $cpu"
make -s -C "$here" kernel-peak BUILD="$build" >/dev/null
: > "$out/kernel-peak.csv"
for r in $(seq "$rounds"); do
  taskset -c "$cpu" "$build/kernel-peak" "$n" 2 > "$build/round.txt"
  grep '^#' "$build/round.txt" | sed "s/^/# round $r: /" >> "$out/kernel-peak-machine.txt"
  grep -v '^#' "$build/round.txt" | { if [ "$r" = 1 ]; then sed 's/^/round,/;2,$s/^round,/1,/'; else tail -n +2 | sed "s/^/$r,/"; fi; } >> "$out/kernel-peak.csv"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/kernel-peak-machine.txt"
