#!/usr/bin/env bash
# Copy the package source to DIR, for builds outside the tree:
#   tools/copy-source.sh DIR
# In a git checkout: the tracked files and the untracked ones git does not
# ignore.  In an export without .git (git archive, a tarball): every file
# but build and check outputs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$1
mkdir -p "$dest"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$top" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$dest"
else
  (cd "$top" && tar -cf - --exclude='./src/*.o' --exclude='./src/*.so' --exclude='./src/*.dll' \
     --exclude=./check --exclude='./facloc.Rcheck' --exclude='./facloc_*.tar.gz' .) |
    tar -xf - -C "$dest"
fi
