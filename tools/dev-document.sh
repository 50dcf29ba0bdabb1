#!/usr/bin/env bash
# Regenerate man/ and NAMESPACE with roxygen2 without compiling in src/
# (sourcing R/ is enough for roxygen, and keeps concurrent builds apart).
set -euo pipefail
cd "$(dirname "$0")/.."
Rscript -e 'roxygen2::roxygenise(load_code = roxygen2::load_source)'
