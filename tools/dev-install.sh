#!/usr/bin/env bash
# Install the working tree into a private library without building in src/:
#   tools/dev-install.sh NAME   ->  library /tmp/facloc-lib-NAME
# Load it with library(facloc, lib.loc = "/tmp/facloc-lib-NAME").
set -euo pipefail
name=${1:-dev}
top=$(cd "$(dirname "$0")/.." && pwd)
build=/tmp/facloc-build-$name
lib=/tmp/facloc-lib-$name
rm -rf "$build"
mkdir -p "$build" "$lib"
bash "$top/tools/copy-source.sh" "$build"
R CMD INSTALL --no-test-load --no-docs --no-multiarch -l "$lib" "$build" >"$build.log" 2>&1 || { cat "$build.log"; exit 1; }
echo "installed into $lib"
