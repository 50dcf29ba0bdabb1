#!/usr/bin/env bash
# Install what building, checking and demonstrating facloc needs, skipping
# whatever is already there (Debian's r-cran-* packages, then CRAN as a
# fallback for any R package still missing).
set -euo pipefail

# texlive-*: pdflatex and the fonts of the PDF manual R CMD check builds
# (about 50 MB; see tools/check.sh for the one font left out)
debs=(r-base-dev r-cran-testthat r-cran-knitr r-cran-rmarkdown r-cran-matrix
      pandoc tidy qpdf valgrind
      texlive-latex-base texlive-latex-recommended texlive-fonts-recommended)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

Rscript -e '
need <- c("testthat", "knitr", "rmarkdown", "Matrix")
miss <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
if (length(miss)) install.packages(miss, repos = "https://cloud.r-project.org")
'
