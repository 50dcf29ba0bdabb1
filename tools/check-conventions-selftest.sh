# The self-test of tools/check-conventions.sh (sourced by it): copies
# src/, R/ and tests/ of the checkout to a temporary directory, expects the
# copy to pass, then plants one violation of each rule in a fresh copy and
# expects the check to fail naming that rule.

# plant RULE: make one violation of RULE under the copy in $work.
plant() {
  local s="$work/src"
  case "$1" in
    openmp-pragma) printf '#pragma omp flush\n' >> "$s/celf_heap.c" ;;
    openmp-macro) printf '#ifdef _OPENMP\n#endif\n' >> "$s/celf_heap.c" ;;
    openmp-call) printf 'static int planted(void) { return omp_get_max_threads(); }\n' >> "$s/celf_heap.c" ;;
    tunable) printf '#define FL_PLANTED_BLOCK 128\n' >> "$s/celf_heap.c" ;;
    team) printf 'static void planted(int threads)\n{\nFL_OMP(parallel num_threads(threads))\n  (void) threads;\n}\n' >> "$s/celf_heap.c" ;;
    mode-enum) printf 'static const int planted = FL_MODE_HC;\n' >> "$s/celf_heap.c" ;;
    include-cycle)
      printf '#include "fl_memory.h"\n' >> "$s/celf_heap.h"
      printf '#include "celf_heap.h"\n' >> "$s/fl_memory.h" ;;
    call-cycle)
      printf 'void fl_planted_two(void);\nvoid fl_planted_one(void)\n{\n  fl_planted_two();\n}\n' >> "$s/celf_heap.c"
      printf 'void fl_planted_one(void);\nvoid fl_planted_two(void)\n{\n  fl_planted_one();\n}\n' >> "$s/fl_memory.c" ;;
    file-length) for i in $(seq 1 600); do echo "/* padding $i */"; done >> "$s/celf_heap.c" ;;
    function-length)
      { printf 'void fl_planted_long(int *v)\n{\n'
        for i in $(seq 1 80); do echo "  v[$i] = $i;"; done
        printf '}\n'; } >> "$s/celf_heap.c" ;;
    hidden-barrier) printf 'void fl_planted_meet(void)\n{\nFL_OMP(barrier)\n}\n' >> "$s/celf_heap.c" ;;
    mode-list-R) printf 'planted <- c("hc", "hpc", "nhpc")\n' >> "$work/R/features.R" ;;
    mode-list-tests)
      printf 'for (mode in c("g", "c", "dc", "hc", "hpc", "nhpc", "stochastic")) print(mode)\n' \
        >> "$work/tests/testthat/test-contract.R" ;;
    *) echo "self-test: no plant for $1" >&2; return 1 ;;
  esac
}

# The rule tag each plant must produce.
rule_of() { case "$1" in openmp-*) echo openmp ;; mode-list-*) echo mode-list ;; *) echo "$1" ;; esac; }

self_test() {
  local src=$1 script tmp work out status failures=0 case
  script="$src/tools/check-conventions.sh"
  tmp=$(mktemp -d)
  fresh() { rm -rf "$tmp/w"; mkdir "$tmp/w"; cp -r "$src/src" "$src/R" "$src/tests" "$tmp/w/"; work="$tmp/w"; }
  fresh
  if out=$(bash "$script" --root "$work" 2>&1); then
    echo "self-test: clean copy passes"
  else
    echo "self-test: FAIL: the clean copy fails:"; echo "$out"; failures=$((failures + 1))
  fi
  for case in openmp-pragma openmp-macro openmp-call tunable team mode-enum include-cycle call-cycle \
              file-length function-length hidden-barrier mode-list-R mode-list-tests; do
    fresh
    plant "$case" || { failures=$((failures + 1)); continue; }
    out=$(bash "$script" --root "$work" 2>&1); status=$?
    if [ "$status" -eq 1 ] && echo "$out" | grep -q "\[$(rule_of "$case")\]"; then
      echo "self-test: $case fails as it should: $(echo "$out" | grep "\[$(rule_of "$case")\]" | head -1)"
    else
      echo "self-test: FAIL: $case gave status $status:"; echo "$out"; failures=$((failures + 1))
    fi
  done
  rm -rf "$tmp"
  if [ "$failures" -gt 0 ]; then echo "self-test: $failures failure(s)"; return 1; fi
  echo "self-test: OK"
}
