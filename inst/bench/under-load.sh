#!/usr/bin/env bash
# Threads beside other work (issue 55): the cases of under-load.R (the
# demo's solve, quakes k = 50, "medium" at the default sigma and at sigma =
# 20, "large", dpmeans on 1e5 points) at 1 and 2 threads, under three
# conditions, one after the other:
#   idle     nothing of ours beside them
#   solver   a second R process solving the demo's problem at 2 threads in
#            a loop (the setting of issue 55), killed when the timed run ends;
#            it loads facloc from FACLOC_COMPETITOR_LIB when set (an older
#            build, whose teams keep their size under load), else as the
#            timed runs do
#   busy     one plain busy loop per available core
# A condition's run is bounded by LIMIT seconds (default 240); REPS rounds
# (default 5) alternate the thread counts.  With OMP_WAIT_POLICY set (the
# timed and the competing processes inherit it), the files are named
# under-load-POLICY*; with FACLOC_COMPETITOR_LIB, the name ends in
# -fixed-competitor.
#
#   FACLOC_LIB=/path/to/lib [FACLOC_COMPETITOR_LIB=/other/lib] \
#     bash inst/bench/under-load.sh [OUT [REPS [LIMIT]]]
#
# Writes OUT/under-load.csv (one row a run: condition, case, threads,
# seconds, answer: a fingerprint of the picks or clusters),
# OUT/under-load-summary.csv (per condition and case: the median seconds
# at 1 and 2 threads, their ratio, and whether each thread count gave one
# answer under every condition) and OUT/under-load-machine.txt (with the
# load average before each condition).
# OUT defaults to inst/bench/results.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/results}
reps=${2:-5}
limit=${3:-240}
name=under-load${OMP_WAIT_POLICY:+-$OMP_WAIT_POLICY}${FACLOC_COMPETITOR_LIB:+-fixed-competitor}
csv=$out/$name.csv
rm -f "$csv"
Rscript -e "source('$here/machine.R'); library_facloc(); write_machine('$out/$name-machine.txt')"

competitor=()
start_load() {
  case $1 in
    solver)
      FACLOC_LIB=${FACLOC_COMPETITOR_LIB:-${FACLOC_LIB:-}} timeout "$limit" Rscript -e "source('$here/machine.R'); library_facloc()
        X <- facility_data('medium')
        repeat facility_greedy(X, 100, sigma = 20, threads = 2)" >/dev/null 2>&1 &
      competitor+=($!) ;;
    busy)
      for _ in $(seq "$(nproc)"); do
        timeout "$limit" sh -c 'while :; do :; done' &
        competitor+=($!)
      done ;;
  esac
  sleep 2   # the competitor past its start-up
}
stop_load() {
  for pid in "${competitor[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${competitor[@]}"; do wait "$pid" 2>/dev/null || true; done
  competitor=()
}
trap stop_load EXIT

# Other tenants' load shows in the load average: recorded with the machine.
for condition in idle solver busy; do
  echo "== $condition"
  echo "load_before_$condition: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/$name-machine.txt"
  start_load "$condition"
  timeout "$limit" Rscript "$here/under-load.R" "$condition" "$csv" "$reps" ||
    echo "under-load: $condition stopped after $limit s"
  stop_load
done

Rscript -e "
rows <- read.csv('$csv')
key <- unique(rows[c('condition', 'case')])
med <- function(c, k, t) median(rows\$seconds[rows\$condition == c & rows\$case == k & rows\$threads == t])
same <- function(k, t) length(unique(rows\$answer[rows\$case == k & rows\$threads == t])) == 1
key\$median_1 <- round(mapply(med, key\$condition, key\$case, 1), 3)
key\$median_2 <- round(mapply(med, key\$condition, key\$case, 2), 3)
key\$ratio_2_over_1 <- round(key\$median_2 / key\$median_1, 3)
key\$same_answer_1 <- vapply(key\$case, same, NA, t = 1)
key\$same_answer_2 <- vapply(key\$case, same, NA, t = 2)
write.csv(key, '$out/$name-summary.csv', row.names = FALSE, quote = FALSE)
print(key, row.names = FALSE)"
