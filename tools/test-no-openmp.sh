#!/usr/bin/env bash
# The package must build and pass its tests without OpenMP, and on a
# processor without AVX2: install the built tarball with SHLIB_OPENMP_CFLAGS
# emptied and -DFL_NO_CLONES (only the version of every kernel for R's own
# target, x86-64's SSE2 here, as where no ifunc exists; no AVX2, FMA or
# AVX-512 clone is built), and run the test suite.
#   tools/test-no-openmp.sh check/facloc_*.tar.gz
set -euo pipefail
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'SHLIB_OPENMP_CFLAGS =\nCPPFLAGS += -DFL_NO_CLONES\n' > "$tmp/Makevars"
mkdir "$tmp/lib"
R_MAKEVARS_USER="$tmp/Makevars" R CMD INSTALL --no-test-load -l "$tmp/lib" "$tarball" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; exit 1; }
if grep -q -- "-fopenmp" "$tmp/install.log"; then
  echo "no-openmp: the build still used -fopenmp"; exit 1
fi
# The clones' names (name.avx2, name.arch_x86_64_v3, name_wide) where nm
# reads the library's symbols: none may be left.
so="$tmp/lib/facloc/libs/facloc.so"
if command -v nm >/dev/null && [ -f "$so" ] &&
   nm "$so" 2>/dev/null | grep -qE '\.avx2|\.arch_x86_64|_wide$'; then
  echo "no-openmp: the portable build still has ISA clones"; exit 1
fi
mkdir "$tmp/tests"
tar -xzf "$tarball" -C "$tmp/tests" facloc/tests
cd "$tmp/tests/facloc/tests/testthat"
Rscript -e '
library(testthat)
library(facloc, lib.loc = commandArgs(TRUE)[1])
stopifnot(!.Call(facloc:::C_facloc_has_openmp))
res <- as.data.frame(test_dir(".", package = "facloc", load_package = "none",
                              reporter = "summary", stop_on_failure = FALSE))
failed <- sum(res$failed) + sum(res$error)
cat(sprintf("no-openmp, no-clones tests: %d passed, %d failed, %d skipped\n",
            sum(res$passed), failed, sum(res$skipped)))
quit(status = failed > 0)
' "$tmp/lib"
