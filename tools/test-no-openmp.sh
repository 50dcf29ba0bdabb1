#!/usr/bin/env bash
# The package must build and pass its tests without OpenMP: install the
# built tarball with SHLIB_OPENMP_CFLAGS emptied and run the test suite.
#   tools/test-no-openmp.sh check/facloc_*.tar.gz
set -euo pipefail
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'SHLIB_OPENMP_CFLAGS =\n' > "$tmp/Makevars"
mkdir "$tmp/lib"
R_MAKEVARS_USER="$tmp/Makevars" R CMD INSTALL --no-test-load -l "$tmp/lib" "$tarball" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; exit 1; }
if grep -q -- "-fopenmp" "$tmp/install.log"; then
  echo "no-openmp: the build still used -fopenmp"; exit 1
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
cat(sprintf("no-openmp tests: %d passed, %d failed, %d skipped\n",
            sum(res$passed), failed, sum(res$skipped)))
quit(status = failed > 0)
' "$tmp/lib"
