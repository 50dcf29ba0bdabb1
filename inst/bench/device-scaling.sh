#!/usr/bin/env bash
# Thread scaling of the matrix-free modes on a machine with more cores and
# no R (issues 3 and 9): the standalone driver on the R package's own data.
#
#   Rscript -e 'library(facloc); for (p in c("large", "medium_cluster", "strong_cluster"))
#     writeBin(c(t(facility_data(p, n = 30000))), file.path(DATA, paste0(p, ".bin")))'
#   bash inst/bench/device-scaling.sh DATA OUT [THREADS] [REPS]
#
# For each preset (n = 30000, d = 32, k = 100, sigma = 20): exact greedy's
# objective (nhpc with batch 1, eps 0, tau 1, at the most threads), then hc,
# hpc and nhpc at every thread count, REPS rounds that each take the thread
# counts in turn.  Each run is a process that solves twice (column call):
# call 1 also starts the threads and maps the memory, call 2 finds both
# ready, as an R session's later solves do (on the 2-core VM, nhpc at 2
# threads on "large": 1.67x over 1 thread by the first calls, 1.84x by the
# later ones, medians).  Writes OUT/device-scaling.csv (one row a solve)
# and OUT/device-scaling-machine.txt.  About 3 minutes on 16 cores.
# (results/device-scaling.csv predates the call column: every row there
# is a first call.)
#
# Beside them in results/, each with a header naming its lease and commit:
#   device-cores.txt    how fast the machine's threads run together
#                       (device-cores.c, also pinned with taskset)
#   device-pinned.csv   1 thread on CPU 0 against 2 on CPUs 0 and 1:
#     taskset -c 0,1 facloc-bench --mode nhpc --threads 2 --n 30000 --input DATA/large.bin
#   device-pass.csv     one exhaustive pass against nhpc at 1 and 16 threads:
#     facloc-bench --pass --threads 16 --n 12000 --input DATA/medium_cluster12.bin --reps 2
#   device-large-n.csv  n = 200000 on the driver's own data:
#     facloc-bench --mode nhpc --threads 16 --n 200000
#   device-variants.csv nhpc at 8 and 16 threads, the build before the
#                       groups took heaps in turn and builds with other
#                       constants; device-omp-env.csv: group sizes
#                       (--group-size) and OMP_WAIT_POLICY / OMP_PROC_BIND
#   device-phases.txt   the time of each phase of a solve (a build with
#                       timers, not part of the package)
set -euo pipefail
data=$1
out=$2
threads=${3:-"1 2 4 8 16"}
reps=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
build=${TMPDIR:-/tmp}/facloc-device-build
. "$here/driver-machine.sh"
driver_start "$out" device-scaling "$build" \
  "OMP_WAIT_POLICY: ${OMP_WAIT_POLICY:-unset}; OMP_PROC_BIND: ${OMP_PROC_BIND:-unset}"
bench=$build/facloc-bench
max=$(echo $threads | tr ' ' '\n' | sort -n | tail -1)
csv=$out/device-scaling.csv
echo "preset,rep,call,mode,threads,n,d,k,seconds,evaluations,pairs,objective,bound" > "$csv"
run() {   # preset rep mode threads [--exact]
  local preset=$1 rep=$2 mode=$3 t=$4
  shift 4
  "$bench" --mode "$mode" --threads "$t" --n 30000 --d 32 --k 100 --sigma 20 \
    --input "$data/$preset.bin" --no-header --reps 2 "$@" |
    awk -v pre="$preset,$rep," '{ print pre NR "," $0 }' >> "$csv"
}
for preset in large strong_cluster medium_cluster; do
  run "$preset" exact nhpc "$max" --exact --reps 1   # the reference, once
  n=$reps
  [ "$preset" = medium_cluster ] && n=$(( reps < 3 ? reps : 3 ))
  for rep in $(seq 1 "$n"); do
    for t in $threads; do
      for mode in hc hpc nhpc; do run "$preset" "$rep" "$mode" "$t"; done
    done
  done
  echo "$preset done"
done
