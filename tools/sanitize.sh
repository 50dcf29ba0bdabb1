#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer runs (needs gcc's libasan and
# libubsan, which come with gcc on Debian).
#
#   tools/sanitize.sh              the C core's fuzz harness, then the whole
#                                  test suite on an ASan+UBSan build
#   tools/sanitize.sh REGEX        only the test files matching REGEX
#                                  (e.g. 'differential|bad-input|interrupt')
#   FUZZ_ITER=N                    random problems in the fuzz run (200)
#
# 1. inst/bench's standalone driver is built with -fsanitize=address,undefined
#    and runs random small problems through every mode, with allocation
#    failures and interrupts injected; LeakSanitizer is on, so a leak in the
#    core (on any error or interrupt path) fails the run.
# 2. The package is installed with the same flags (R_MAKEVARS_USER) into a
#    private library, and the tests run with libasan preloaded, since R itself
#    is not instrumented.  Leak detection is off there (R leaks by design at
#    exit); the core's leaks are covered by step 1.  Any ASan or UBSan report
#    aborts the run and fails the script.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
filter=${1:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/facloc-sanitize.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Tiny solves spend their time in OpenMP barriers: passive waiting keeps
# them short on a busy machine (and under valgrind, which runs one thread at
# a time); the synchronisation itself is the same.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
flags="-g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

echo "== sanitize: C core fuzz harness (ASan + UBSan + LeakSanitizer)"
make -s -C "$top/inst/bench" sanitize BUILD="$tmp/bench" ITER="${FUZZ_ITER:-200}"
# The kernels as built where they are not chosen at load time (one version
# for the target: 4-float vectors with SSE2 alone), which R builds elsewhere.
echo "== sanitize: the same with -DFL_NO_CLONES"
make -s -C "$top/inst/bench" sanitize BUILD="$tmp/bench-noclones" CLONES=0 \
  ITER="$(( (${FUZZ_ITER:-200} + 1) / 2 ))"
# Without OpenMP, as R builds it where the compiler has none; seed 16 holds
# the case where a round of "hpc" once ended without a pick (case 14).
echo "== sanitize: the same without OpenMP"
make -s -C "$top/inst/bench" sanitize BUILD="$tmp/bench-noomp" OMP= SEED=16 \
  ITER="$(( ${FUZZ_ITER:-200} / 4 > 15 ? ${FUZZ_ITER:-200} / 4 : 15 ))"

echo "== sanitize: package built with $flags"
mkdir -p "$tmp/pkg" "$tmp/lib"
bash "$top/tools/copy-source.sh" "$tmp/pkg"
rm -f "$tmp"/pkg/src/*.o "$tmp"/pkg/src/*.so
cat > "$tmp/Makevars" <<MK
CFLAGS = $flags
LDFLAGS = -fsanitize=address,undefined
MK
R_MAKEVARS_USER="$tmp/Makevars" R CMD INSTALL --no-test-load --no-docs --no-multiarch \
  -l "$tmp/lib" "$tmp/pkg" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
grep -q -- "-fsanitize=address" "$tmp/install.log" || { echo "sanitize: flags not used"; exit 1; }

asan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
echo "== sanitize: tests${filter:+ matching '$filter'} with LD_PRELOAD=$asan"
set +e
(cd "$tmp/pkg/tests/testthat" &&
 LD_PRELOAD="$asan" \
 ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:print_summary=1" \
 UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
 NOT_CRAN=true Rscript --vanilla -e '
   args <- commandArgs(TRUE)
   library(testthat)
   library(facloc, lib.loc = args[1])
   res <- as.data.frame(test_dir(".", package = "facloc", load_package = "none",
                                 filter = if (nzchar(args[2])) args[2],
                                 reporter = "summary", stop_on_failure = FALSE))
   failed <- sum(res$failed) + sum(res$error)
   cat(sprintf("sanitize tests: %d passed, %d failed, %d skipped\n",
               sum(res$passed), failed, sum(res$skipped)))
   quit(status = failed > 0)' "$tmp/lib" "$filter") 2>&1 | tee "$tmp/tests.log"
status=${PIPESTATUS[0]}
set -e
if grep -qE "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" "$tmp/tests.log"; then
  echo "sanitize: a sanitizer reported an error (above)"
  status=1
fi
[ "$status" -eq 0 ] && echo "sanitize: clean" || echo "sanitize: FAILED"
exit "$status"
