#!/usr/bin/env bash
# valgrind memcheck runs (apt package valgrind).
#
#   tools/valgrind.sh              the C core's fuzz harness, then the whole
#                                  test suite under R -d valgrind
#   tools/valgrind.sh REGEX        only the test files matching REGEX
#   FUZZ_ITER=N                    random problems in the fuzz run (20)
#
# Fails on any memcheck error (invalid read/write, use of uninitialised
# values, bad free) and on any "definitely lost" block allocated by facloc.
# Leaks of R itself, of libgomp's thread pool or of other packages are
# reported in the log but do not fail the run.  The package is built with
# -O0 -g so that the stacks name our lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
filter=${1:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/facloc-valgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Tiny solves spend their time in OpenMP barriers: passive waiting keeps
# them short on a busy machine (and under valgrind, which runs one thread at
# a time); the synchronisation itself is the same.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)"; exit 1; }

echo "== valgrind: C core fuzz harness"
if ! make -s -C "$top/inst/bench" valgrind BUILD="$tmp/bench" ITER="${FUZZ_ITER:-20}" >"$tmp/fuzz.log" 2>&1; then
  tail -n 60 "$tmp/fuzz.log"
  echo "valgrind: the fuzz harness failed under memcheck"
  exit 1
fi
grep -E "^fuzz:|ERROR SUMMARY|definitely lost" "$tmp/fuzz.log" | sed 's/^==[0-9]*== */valgrind: /'

echo "== valgrind: package built with -O0 -g"
mkdir -p "$tmp/pkg" "$tmp/lib"
bash "$top/tools/copy-source.sh" "$tmp/pkg"
rm -f "$tmp"/pkg/src/*.o "$tmp"/pkg/src/*.so
printf 'CFLAGS = -g -O0\n' > "$tmp/Makevars"
R_MAKEVARS_USER="$tmp/Makevars" R CMD INSTALL --no-test-load --no-docs --no-multiarch \
  -l "$tmp/lib" "$tmp/pkg" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }

cat > "$tmp/run.R" <<'RS'
args <- strsplit(Sys.getenv("FACLOC_VG_ARGS"), "\t")[[1]]
library(testthat)
library(facloc, lib.loc = args[1])
setwd(args[2])
res <- as.data.frame(test_dir(".", package = "facloc", load_package = "none",
                              filter = if (length(args) > 2 && nzchar(args[3])) args[3],
                              reporter = "summary", stop_on_failure = FALSE))
failed <- sum(res$failed) + sum(res$error)
cat(sprintf("valgrind tests: %d passed, %d failed, %d skipped\n",
            sum(res$passed), failed, sum(res$skipped)))
quit(status = failed > 0)
RS
echo "== valgrind: tests${filter:+ matching '$filter'} under memcheck"
set +e
FACLOC_VG_ARGS="$tmp/lib	$tmp/pkg/tests/testthat	$filter" NOT_CRAN=true \
  R --vanilla -d "valgrind --leak-check=full --errors-for-leak-kinds=definite --num-callers=30 --log-file=$tmp/vg.%p.log" \
  --no-echo -f "$tmp/run.R" 2>&1 | tail -n 25
status=${PIPESTATUS[0]}
set -e
# One log per process (the interrupt test starts child R processes, which
# run without valgrind: only the parent's log has the R tests).
log=$(ls -S "$tmp"/vg.*.log | head -n 1)
errors=$(grep -E "ERROR SUMMARY: [0-9]+" "$log" | sed -E 's/.*ERROR SUMMARY: ([0-9]+) errors.*/\1/')
# Loss records (blank-line separated) that are definite and pass through facloc.
ours=$(awk -v RS= '/definitely lost/ && /facloc\.so/' "$log" | grep -c "definitely lost" || true)
grep -E "definitely lost:|indirectly lost:|ERROR SUMMARY" "$log" | sed 's/^==[0-9]*== */valgrind: /'
# Memcheck errors that do not involve facloc (R's own) are shown but tolerated.
facloc_errors=$(awk -v RS= '!/lost in loss record/ && /facloc\.so/ && /(Invalid|uninitialised|Mismatched|free\(\))/' "$log" | grep -cE "^==[0-9]+== [A-Z]" || true)
if [ "${facloc_errors:-0}" -gt 0 ]; then
  awk -v RS= '!/lost in loss record/ && /facloc\.so/' "$log" | head -n 80
  echo "valgrind: $facloc_errors memcheck error(s) in facloc"
  status=1
fi
if [ "${ours:-0}" -gt 0 ]; then
  awk -v RS= '/definitely lost/ && /facloc\.so/' "$log" | head -n 80
  echo "valgrind: $ours definite leak(s) from facloc"
  status=1
fi
if [ "${errors:-0}" -gt 0 ] && [ "${facloc_errors:-0}" -eq 0 ]; then
  echo "valgrind: $errors error(s) outside facloc (R or its libraries), not counted"
fi
[ "$status" -eq 0 ] && echo "valgrind: clean" || echo "valgrind: FAILED"
exit "$status"
