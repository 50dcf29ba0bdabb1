#!/usr/bin/env bash
# Quality of the default relaxed mode away from the benchmark sizes: f(S)
# of nhpc at one thread (default control) over exact greedy's (the
# driver's --exact: batch 1, eps 0, tau 1), both by the standalone driver,
# for the presets drawn at n other than those of bench-performance.R (d =
# 32, sigma = 20, k = 20 and 100).  The relaxed modes are documented to
# stay within 0.1% of greedy on the benchmark data; this shows where they
# do not.
#
#   Rscript -e 'library(facloc); p <- facility_presets()
#     p <- p[!p$name %in% c("medium", "large"), ]   # "small" at other n
#     for (i in seq_len(nrow(p))) for (n in c(1000, 2000, 3000, 5000, 8000,
#         if (p$name[i] == "heavy_skew") c(11000, 16000)))
#       writeBin(c(t(facility_data(p$name[i], n = n))),
#                file.path(DATA, sprintf("%s_%d.bin", p$name[i], n)))'
#   bash inst/bench/quality-sizes.sh DATA OUT
#
# Writes OUT/quality-sizes.csv (preset, n, k, objective, exact objective,
# quality, pairs and evaluations of nhpc) and OUT/quality-sizes-machine.txt.
# About 3 minutes for those 52 files on the 2-core VM.
set -euo pipefail
data=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
build=${TMPDIR:-/tmp}/facloc-quality-sizes-build
. "$here/driver-machine.sh"
driver_start "$out" quality-sizes "$build" "build: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
csv=$out/quality-sizes.csv
echo "preset,n,k,objective,exact_objective,quality,pairs,evaluations" > "$csv"
for file in "$data"/*.bin; do
  name=$(basename "$file" .bin)
  n=${name##*_}
  for k in 20 100; do
    solve() { "$build/facloc-bench" --mode nhpc --threads 1 --d 32 --k "$k" --sigma 20 \
                --no-header --n "$n" --input "$file" --reps 1 "$@"; }
    exact=$(solve --exact | cut -d, -f9)
    solve | awk -F, -v p="${name%_*}" -v n="$n" -v k="$k" -v e="$exact" \
      '{ printf "%s,%s,%s,%s,%s,%.6f,%s,%s\n", p, n, k, $9, e, $9 / e, $8, $7 }' >> "$csv"
  done
done
awk -F, 'NR > 1 && $6 < 0.999 { low++ } END { printf "%d of %d below 0.999 of greedy\n", low, NR - 1 }' "$csv"
