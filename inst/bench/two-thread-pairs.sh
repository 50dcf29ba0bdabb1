#!/usr/bin/env bash
# Two threads over one for nhpc on the n = 30000 presets (issues 3 and 9),
# for machines whose vCPUs lose time to other tenants: each row pairs a
# solve at 2 threads (bound to CPUs 0 and 1) with the faster of two solves
# at 1 thread, one on each CPU, taken seconds apart, and records each
# CPU's time for a small pass (n = 2000) before and after them, so that
# the rows taken while the two CPUs ran at the same speed can be told from
# the others.  (A 1-thread solve on a CPU that another tenant slows would
# flatter 2 threads.)
#
#   (DATA as for pass-share.sh: <preset>_30000.bin, d = 32)
#   bash inst/bench/two-thread-pairs.sh DATA OUT [SECONDS]
#
# Rows go round the presets until SECONDS (default 1500) have passed; in
# each, the solves at 1 and 2 threads take turns going first, each the
# fastest of 3 (2 threads) or 2 (1 thread, on each CPU) calls in one
# process.  A row is even when each CPU's pass took at most 1.1 times the
# other's, before and after.  Writes OUT/two-thread-pairs.csv (one row a
# pair), OUT/two-thread-pairs-summary.csv (per preset: rows, the median
# and 90th percentile of the speedup, even rows and their median) and
# OUT/two-thread-pairs-machine.txt.  SECONDS 0: only the summary, of an
# OUT/two-thread-pairs.csv already there.
set -euo pipefail
data=$1
out=$2
seconds=${3:-1500}
here=$(cd "$(dirname "$0")" && pwd)
build=${TMPDIR:-/tmp}/facloc-two-thread-build
summarise() {
  awk -F, 'NR > 1 {
      b = $3 > $4 ? $3 / $4 : $4 / $3; a = $5 > $6 ? $5 / $6 : $6 / $5
      print $2, (b <= 1.1 && a <= 1.1), $10
    }' "$1" | sort -k1,1 -k3,3g | awk '
    function pick(list, q,   v, m, h, i) {   # quantile q, interpolated (R type 7)
      m = split(list, v, " ")
      if (m == 0) return "NA"
      h = (m - 1) * q + 1; i = int(h)
      return i < m ? sprintf("%.4f", v[i] + (h - i) * (v[i + 1] - v[i])) : v[m]
    }
    { all[$1] = all[$1] " " $3; rows[$1]++; if ($2) { even[$1] = even[$1] " " $3; nev[$1]++ } }
    END {
      print "preset,rows,median_speedup,p90_speedup,even_rows,even_median_speedup"
      for (p in rows)
        printf "%s,%d,%s,%s,%d,%s\n", p, rows[p], pick(all[p], 0.5), pick(all[p], 0.9), nev[p],
               pick(even[p], 0.5)
    }'
}
csv=$out/two-thread-pairs.csv
if [ "$seconds" -eq 0 ]; then
  summarise "$csv" | tee "$out/two-thread-pairs-summary.csv"
  exit 0
fi
. "$here/driver-machine.sh"
driver_start "$out" two-thread-pairs "$build" \
  "2 threads: GOMP_CPU_AFFINITY='0 1'; 1 thread: taskset -c 0 and -c 1"
bench=$build/facloc-bench
files=("$data"/*_30000.bin)
common="--mode nhpc --n 30000 --d 32 --k 100 --sigma 20 --no-header"
fastest() { cut -d, -f6 | sort -g | head -1; }
pass_on() {   # CPU: the faster of 2 passes at n = 2000 (first data file)
  taskset -c "$1" "$bench" --pass --threads 1 --n 2000 --d 32 --k 100 --sigma 20 --no-header \
    --input "${files[0]}" --reps 2 | fastest
}
one_on() { taskset -c "$1" "$bench" $common --threads 1 --input "$2" --reps 2 | fastest; }
two() { GOMP_CPU_AFFINITY="0 1" "$bench" $common --threads 2 --input "$1" --reps 3 | fastest; }
echo "time,preset,pass0_before,pass1_before,pass0_after,pass1_after,seconds_1_cpu0,seconds_1_cpu1,seconds_2,speedup" > "$csv"
end=$(( $(date +%s) + seconds ))
row=0
while [ "$(date +%s)" -lt "$end" ]; do
  for file in "${files[@]}"; do
    row=$((row + 1))
    b0=$(pass_on 0); b1=$(pass_on 1)
    if [ $((row % 2)) -eq 1 ]; then c0=$(one_on 0 "$file"); c1=$(one_on 1 "$file"); t2=$(two "$file")
    else t2=$(two "$file"); c1=$(one_on 1 "$file"); c0=$(one_on 0 "$file"); fi
    a0=$(pass_on 0); a1=$(pass_on 1)
    echo "$(date -u +%H:%M:%S),$(basename "$file" _30000.bin),$b0,$b1,$a0,$a1,$c0,$c1,$t2" |
      awk -F, -v OFS=, '{ print $0, sprintf("%.3f", ($7 < $8 ? $7 : $8) / $9) }' >> "$csv"
  done
done
summarise "$csv" | tee "$out/two-thread-pairs-summary.csv"
