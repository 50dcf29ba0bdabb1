#!/usr/bin/env bash
# R CMD build + R CMD check --as-cran on the tarball; fails on any ERROR or
# WARNING, prints the NOTEs and a closing test count.
set -euo pipefail
cd "$(dirname "$0")/.."
out=check
rm -rf "$out"
mkdir -p "$out"
# Offline machine: skip the CRAN-incoming look-ups and the clock check that
# need the network.
export _R_CHECK_CRAN_INCOMING_REMOTE_=false
export _R_CHECK_SYSTEM_CLOCK_=false
# The PDF manual is checked with the TeX packages of install-deps.sh; its
# default monospaced font, inconsolata, comes only with Debian's 1.4 GB
# texlive-fonts-extra, so it is set in the Times family's Courier instead.
export R_RD4PDF="${R_RD4PDF:-times,hyper}"
(cd "$out" && R CMD build --no-manual .. 2>&1 | tail -n 3)
tarball=$(ls "$out"/facloc_*.tar.gz)
set +e
(cd "$out" && R CMD check --as-cran "$(basename "$tarball")")
status=$?
set -e
log="$out/facloc.Rcheck/00check.log"
rout="$out/facloc.Rcheck/tests/testthat.Rout"
[ -f "$rout" ] || rout="$out/facloc.Rcheck/tests/testthat.Rout.fail"
if [ -f "$rout" ]; then
  counts=$(grep -E '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" | tail -n 1)
  if [ -n "$counts" ]; then
    fail=$(sed -E 's/.*FAIL ([0-9]+).*/\1/' <<<"$counts")
    skip=$(sed -E 's/.*SKIP ([0-9]+).*/\1/' <<<"$counts")
    pass=$(sed -E 's/.*PASS ([0-9]+).*/\1/' <<<"$counts")
  fi
  [ "$status" -ne 0 ] && tail -n 40 "$rout"
fi
if grep -qE '^\* .*(WARNING|ERROR)$' "$log" || [ "$status" -ne 0 ]; then
  echo "check: R CMD check reported an ERROR or WARNING"
  grep -B1 -A12 -E '(WARNING|ERROR)$' "$log" || true
  status=1
fi
grep -A8 -E 'NOTE$' "$log" || true
# The same tests on a build without OpenMP and without the AVX2, FMA and
# AVX-512 clones: the portable path (the failures shown in full).
noomp=$(mktemp)
if ! bash tools/test-no-openmp.sh "$tarball" >"$noomp" 2>&1; then
  sed -n '/^══ Failed/,$p' "$noomp" | head -n 60
  status=1
fi
tail -n 1 "$noomp"
rm -f "$noomp"
echo "tests: ${pass:-0} passed, ${fail:-0} failed, ${skip:-0} skipped"
exit "$status"
