#!/usr/bin/env bash
# Two threads over one for nhpc (or MODE) on the n = 30000 presets
# (issues 3 and 9), for machines whose vCPUs lose time to other tenants:
# each row pairs a solve at 2 threads (bound to CPUs 0 and 1) with the
# faster of two solves at 1 thread, one on each CPU, taken seconds apart,
# and records each CPU's time for a small pass (n = 2000) before and
# after them, so that the rows taken while the two CPUs ran at the same
# speed can be told from the others.  (A 1-thread solve on a CPU that
# another tenant slows would flatter 2 threads.)
#
#   (DATA as for pass-share.sh: <preset>_30000.bin, d = 32)
#   bash inst/bench/two-thread-pairs.sh DATA OUT [SECONDS [MODE]]
#
# Rows go round the presets until SECONDS (default 1500) have passed; in
# each, the solves at 1 and 2 threads take turns going first, each the
# fastest of 3 (2 threads) or 2 (1 thread, on each CPU) calls in one
# process.  A row is even when each CPU's pass took at most 1.1 times the
# other's, before and after, and quiet when, besides, each CPU's pass took
# at most 1.1 times as long with both CPUs running one at once (before and
# after).  On this VM 2-thread solves on "large" took 0.11 to 0.12 s in
# some minutes and 0.14 to 0.16 s in others with each CPU as fast as the
# other alone; the passes with both busy did not show that state either
# (the quiet rows' medians were within 0.03 of all rows'), the barrier of
# two threads does: a row is near when the barrier took at most near_ns
# (driver-machine.sh) before and after.  Writes
# OUT/two-thread-pairs.csv (one row a pair; MODE, default nhpc, names
# another solver, whose files are then two-thread-pairs-MODE*),
# OUT/two-thread-pairs-summary.csv (per preset: rows, the median
# and 90th percentile of the speedup, even, quiet and near rows and their
# medians, and the median of the other rows) and
# OUT/two-thread-pairs-machine.txt.  SECONDS 0: only the
# summary, of an OUT/two-thread-pairs.csv already there.
set -euo pipefail
data=$1
out=$2
seconds=${3:-1500}
mode=${4:-nhpc}
name=two-thread-pairs
[ "$mode" = nhpc ] || name=$name-$mode
here=$(cd "$(dirname "$0")" && pwd)
build=${TMPDIR:-/tmp}/facloc-two-thread-build
. "$here/driver-machine.sh"
summarise() {
  pairs_values "$1" '$10' | awk "$pairs_pick"'
    { all[$1] = all[$1] " " $3; rows[$1]++; if ($2) { even[$1] = even[$1] " " $3; nev[$1]++ }
      if ($4) { quiet[$1] = quiet[$1] " " $3; nq[$1]++ }
      if ($5) { near[$1] = near[$1] " " $3; nn[$1]++ } else { far[$1] = far[$1] " " $3 } }
    END {
      print "preset,rows,median_speedup,p90_speedup,even_rows,even_median_speedup,quiet_rows,quiet_median_speedup,near_rows,near_median_speedup,far_median_speedup"
      for (p in rows)
        printf "%s,%d,%s,%s,%d,%s,%d,%s,%d,%s,%s\n", p, rows[p], pick(all[p], 0.5), pick(all[p], 0.9),
               nev[p], pick(even[p], 0.5), nq[p], pick(quiet[p], 0.5), nn[p], pick(near[p], 0.5),
               pick(far[p], 0.5)
    }'
}
csv=$out/$name.csv
if [ "$seconds" -eq 0 ]; then
  summarise "$csv" | tee "$out/$name-summary.csv"
  exit 0
fi
driver_start "$out" "$name" "$build" \
  "2 threads: GOMP_CPU_AFFINITY='0 1'; 1 thread: taskset -c 0 and -c 1"
pass_driver=$build/facloc-bench
files=("$data"/*_30000.bin)
common="--mode $mode --n 30000 --d 32 --k 100 --sigma 20 --no-header"
one_on() { taskset -c "$1" "$pass_driver" $common --threads 1 --input "$2" --reps 2 | fastest; }
two() { GOMP_CPU_AFFINITY="0 1" "$pass_driver" $common --threads 2 --input "$1" --reps 3 | fastest; }
threads_pair() {   # FILE ROW: 1 thread on each CPU and 2 threads, in turns
  local c0 c1 t2
  if [ $(($2 % 2)) -eq 1 ]; then c0=$(one_on 0 "$1"); c1=$(one_on 1 "$1"); t2=$(two "$1")
  else t2=$(two "$1"); c1=$(one_on 1 "$1"); c0=$(one_on 0 "$1"); fi
  echo "$c0,$c1,$t2" | awk -F, -v OFS=, '{ print $0, sprintf("%.3f", ($1 < $2 ? $1 : $2) / $3) }'
}
pairs_run "$seconds" "$csv" seconds_1_cpu0,seconds_1_cpu1,seconds_2,speedup threads_pair
summarise "$csv" | tee "$out/$name-summary.csv"
