#!/usr/bin/env bash
# Two builds of the C core side by side: nhpc at 2 threads on the n =
# 30000 presets, for changes whose effect is smaller than the noise of a
# shared VM between runs taken minutes apart.
#
#   (DATA as for pass-share.sh: <preset>_30000.bin, d = 32)
#   bash inst/bench/build-pairs.sh DATA OUT REV_A REV_B [SECONDS]
#
# REV_A and REV_B are git revisions of this repository, or "." for the
# working tree; each is built into its own standalone driver.  Rows go
# round the presets until SECONDS (default 900) have passed; in each, the
# two builds take turns going first, each the fastest of 3 calls in one
# process, between passes (n = 2000, the faster of 2) that record each
# CPU's speed before and after, as in two-thread-pairs.sh.  A row is even when each CPU's
# pass took at most 1.1 times the other's, before and after.  Writes
# OUT/build-pairs.csv (one row a pair), OUT/build-pairs-summary.csv (per
# preset: rows, rows where B was faster, the median of B's time over A's,
# in all rows, the even ones and the others) and OUT/build-pairs-machine.txt.
set -euo pipefail
data=$1
out=$2
rev_a=$3
rev_b=$4
seconds=${5:-900}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${TMPDIR:-/tmp}/facloc-build-pairs
. "$here/driver-machine.sh"
build_rev() {   # REV DIR: the driver of revision REV in DIR
  rm -rf "$2" && mkdir -p "$2/src"
  if [ "$1" = . ]; then cp -r "$top/src/." "$2/src"
  else git -C "$top" archive "$1" src | tar -x -C "$2"; fi
  make -s -C "$here" BUILD="$2" SRC_DIR="$2/src" >/dev/null
}
driver_start "$out" build-pairs "$work/tree" "A: $rev_a ($(git -C "$top" rev-parse --short HEAD) is HEAD)" \
  "B: $rev_b" "2 threads: GOMP_CPU_AFFINITY='0 1'"
build_rev "$rev_a" "$work/a"
build_rev "$rev_b" "$work/b"
files=("$data"/*_30000.bin)
pass_driver=$work/tree/facloc-bench
two() {   # BUILD FILE
  GOMP_CPU_AFFINITY="0 1" "$1/facloc-bench" --mode nhpc --n 30000 --d 32 --k 100 --sigma 20 \
    --no-header --threads 2 --input "$2" --reps 3 | fastest
}
builds_pair() {   # FILE ROW: A and B, in turns
  local ta tb
  if [ $(($2 % 2)) -eq 1 ]; then ta=$(two "$work/a" "$1"); tb=$(two "$work/b" "$1")
  else tb=$(two "$work/b" "$1"); ta=$(two "$work/a" "$1"); fi
  echo "$ta,$tb"
}
csv=$out/build-pairs.csv
pairs_run "$seconds" "$csv" seconds_a,seconds_b builds_pair
pairs_values "$csv" '$8 / $7' | awk "$pairs_pick"'
  { all[$1] = all[$1] " " $3; rows[$1]++; faster[$1] += $3 < 1
    if ($2) { even[$1] = even[$1] " " $3; nev[$1]++ } else { odd[$1] = odd[$1] " " $3 } }
  END {
    print "preset,rows,b_faster,median_b_over_a,even_rows,even_median,uneven_median"
    for (p in rows)
      printf "%s,%d,%d,%s,%d,%s,%s\n", p, rows[p], faster[p], pick(all[p], 0.5), nev[p],
             pick(even[p], 0.5), pick(odd[p], 0.5)
  }' | tee "$out/build-pairs-summary.csv"
