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
# counts in turn.  Writes OUT/device-scaling.csv (one row a run) and
# OUT/device-scaling-machine.txt.  About 5 minutes on 16 cores.  Beside it
# in results/: device-cores.txt, a probe of how fast the machine's threads
# run together (device-cores.c), and device-bind.csv, nhpc at 1 and 2
# threads with and without OMP_PROC_BIND=spread, and device-phases.txt,
# the time of each phase of a solve at 1 to 16 threads (commands in their
# headers).
set -euo pipefail
data=$1
out=$2
threads=${3:-"1 2 4 8 16"}
reps=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
build=${TMPDIR:-/tmp}/facloc-device-build
mkdir -p "$out"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "compiler: $(gcc --version | head -1)"
  echo "cflags: -std=gnu99 -g -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fopenmp (inst/bench/GNUmakefile)"
  echo "nproc: $(nproc)"
  lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\)|L3)' || true
  echo "OMP_WAIT_POLICY: ${OMP_WAIT_POLICY:-unset}; OMP_PROC_BIND: ${OMP_PROC_BIND:-unset}"
} > "$out/device-scaling-machine.txt"
make -s -C "$here" BUILD="$build" >/dev/null
bench=$build/facloc-bench
max=$(echo $threads | tr ' ' '\n' | sort -n | tail -1)
csv=$out/device-scaling.csv
echo "preset,rep,mode,threads,n,d,k,seconds,evaluations,pairs,objective,bound" > "$csv"
run() {   # preset rep mode threads [--exact]
  local preset=$1 rep=$2 mode=$3 t=$4
  shift 4
  "$bench" --mode "$mode" --threads "$t" --n 30000 --d 32 --k 100 --sigma 20 \
    --input "$data/$preset.bin" --no-header "$@" | sed "s/^/$preset,$rep,/" >> "$csv"
}
for preset in large strong_cluster medium_cluster; do
  run "$preset" exact nhpc "$max" --exact
  n=$reps
  [ "$preset" = medium_cluster ] && n=$(( reps < 3 ? reps : 3 ))
  for rep in $(seq 1 "$n"); do
    for t in $threads; do
      for mode in hc hpc nhpc; do run "$preset" "$rep" "$mode" "$t"; done
    done
  done
  echo "$preset done"
done
