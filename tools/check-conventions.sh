#!/usr/bin/env bash
# The conventions of src/README.md, checked (bash, grep, awk, sort, join,
# tsort; no R needed).  Each violation prints "file:line: [rule] message";
# the exit status is 1 when there is any.
#
#   tools/check-conventions.sh              check this checkout
#   tools/check-conventions.sh --root DIR   check DIR/src, DIR/R, DIR/tests
#   tools/check-conventions.sh --self-test  plant one violation of each rule
#                                           in a copy and expect a failure
#
# Rules:
#   [openmp]          `pragma omp`, `_OPENMP`, omp.h or an omp_* call outside
#                     src/fl_omp.h (use FL_OMP(), FL_HAVE_OMP, its helpers)
#   [tunable]         `#define FL_NAME <number>` outside src/fl_tune.h,
#                     unless NAME is in the allow-list below (with a reason)
#   [mode-enum]       FL_MODE_* outside facloc.h (the enum) and fl_solve.c
#                     (the table); r_facloc.c may use FL_MODE_COUNT to list
#                     the table's names for R
#   [include-cycle]   a cycle of #include "..." between units (x.c and x.h
#                     are one unit; a header without a .c is its own)
#   [call-cycle]      a cycle of calls between src/*.c files: a call is a
#                     name followed by "(" that another file defines
#                     (non-static); macros and function pointers are not
#                     followed
#   [file-length]     a src file over 600 lines
#   [function-length] a C function over 80 lines, from the line at column
#                     0 that starts its definition to its "}" at column 0
#   [team]            a num_threads() clause in src/ whose argument is not
#                     fl_team(...), fl_par_threads(...) or a variable named
#                     team: every region's team is sized in fl_threads.c
#                     (one thread while the processors are oversubscribed)
#   [hidden-barrier]  a barrier outside the parallel region it meets in (an
#                     orphaned FL_OMP(barrier), FL_OMP(single) or FL_OMP(for),
#                     or fl_barrier_wait) in a C function whose name does
#                     not say who meets (team, group, round, barrier) and
#                     whose signature takes no fl_barrier: every thread
#                     must call such a function, and its name must say so
#   [mode-list]       c("...", ...) in R/ or tests/ (code, one line) whose
#                     names are all the modes of one or more kinds of the
#                     table in src/fl_solve.c: use facility_modes(kind)
set -uo pipefail
export LC_ALL=C

MAX_FILE_LINES=600
MAX_FUNCTION_LINES=80

# Numeric FL_ constants that may stay beside their code: not tunables.
ALLOWED_CONSTANTS="
FL_LINE             cache line in bytes (hardware)
FL_MF_PAD           a cache line in doubles (FL_LINE / 8)
FL_COLS_PAD         the widest vector (AVX-512) in floats
FL_VF               vector width of the ISA compiled for
FL_TV               vector width of the ISA compiled for
FL_TNV              vectors per tile row for the ISA compiled for
FL_NARROW_LANES     vector width of the ISA compiled for (AVX2 or SSE2)
FL_TILE_SINGLE      feature switch (0/1): the tile template's float instance
FL_VEC_SUMS         feature switch (0/1): compiler has vector conversions
FL_WIDE             feature switch (0/1): AVX-512 paths built
FL_HAVE_CLONES      feature switch (0/1): function clones built
FL_HAVE_OMP         feature switch (0/1): built with OpenMP
FL_BARRIER_FUTEX    feature switch (0/1): barrier sleeps on a futex
FL_BARRIER_CONDVAR  feature switch (0/1): barrier sleeps on a condvar
FL_LEAF_FLOATS      count of the per-leaf float arrays (array size)
FL_LANE_REC         count of the per-lane records (array size)
FL_F32_EPS          math: 2^-23, single-precision epsilon
FL_REACH_SHRINK     math: 1 - FL_F32_EPS
FL_SQRT_HALF_PI     math constant
FL_INV_SQRT_2PI     math constant
FL_EXP_XMAX         math: exp(-x) rounds to 0 past it
FL_EXPF_XMAX        math: expf(-x) rounds to 0 past it
FL_EXPF_ERR         math: error bound of the expf approximation
FL_RAD_SLACK        rounding margin
FL_SIM_SLACK        rounding margin
FL_RAISE_SLACK      rounding margin
FL_BALLS_SLACK      rounding margin
FL_UB_SLACK         rounding margin
FL_DUAL_BALL_MARGIN rounding margin
FL_CHORD_SLACK      rounding margin
FL_CHORD_AMAX       math: exponent cap below FL_EXPF_XMAX (values stay upper bounds)
FL_ZERO_GAIN        rounding floor: below it a float gain is noise
FL_Z_MAX            guard that keeps drop_estimated() finite
FL_TINY_DIST        guard that keeps drop_estimated() finite
"

root=""
die() { echo "check-conventions: $*" >&2; exit 2; }

c_files() { ls "$root"/src/*.c "$root"/src/*.h 2>/dev/null; }
rel() { sed "s|$root/||g"; }

check_openmp() {
  grep -nE 'pragma[[:space:]]+omp|_OPENMP|<omp\.h>|(^|[^A-Za-z0-9_])omp_[a-z_]+' $(c_files) |
    grep -v "^$root/src/fl_omp.h:" | rel |
    awk -F: '{ print $1 ":" $2 ": [openmp] OpenMP named outside src/fl_omp.h (use FL_OMP, FL_HAVE_OMP or its helpers)" }'
}

check_tunables() {
  local allowed
  allowed=$(echo "$ALLOWED_CONSTANTS" | awk 'NF { print $1 }' | tr '\n' ' ')
  grep -nE '^[[:space:]]*#[[:space:]]*define[[:space:]]+FL_[A-Z0-9_]+[[:space:]]+\(?[-+]?\.?[0-9]' $(c_files) |
    grep -v "^$root/src/fl_tune.h:" | rel |
    awk -v allowed="$allowed" '
      BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
      { split($0, f, ":"); line = $0; sub(/^[^:]*:[^:]*:[ \t]*#[ \t]*define[ \t]+/, "", line)
        split(line, w, /[ \t]+/)
        if (!(w[1] in ok))
          print f[1] ":" f[2] ": [tunable] numeric " w[1] " outside src/fl_tune.h (move it there, or allow-list it in tools/check-conventions.sh with a reason)" }'
}

check_teams() {
  grep -nE '(^|[^A-Za-z0-9_])num_threads\(' $(c_files) | grep -vE 'num_threads\(([a-z_]*team\(|fl_par_threads\(|team\))' |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' | rel |
    awk -F: '{ print $1 ":" $2 ": [team] num_threads() not sized by fl_team() or fl_par_threads()" }'
}

check_mode_enum() {
  grep -noE 'FL_MODE_[A-Z0-9_]+' $(c_files) | rel |
    awk -F: '
      $1 == "src/facloc.h" || $1 == "src/fl_solve.c" { next }
      $1 == "src/r_facloc.c" && $3 == "FL_MODE_COUNT" { next }
      { print $1 ":" $2 ": [mode-enum] " $3 " outside the mode table (src/facloc.h, src/fl_solve.c)" }'
}

# Unit of a src path: its basename without .c or .h.
unit_of() { sed -E 's|.*/||; s/\.[ch]$//'; }

check_include_cycles() {
  local edges loop
  edges=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+"' $(c_files) | rel |
    awk -F: '{ u = $1; sub(/.*\//, "", u); sub(/\.[ch]$/, "", u)
               h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h); v = h; sub(/\.[ch]$/, "", v)
               if (u != v) print u, v, $1 ":" $2 }')
  loop=$(echo "$edges" | awk '{ print $1, $2 }' | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
  [ -z "$loop" ] && return 0
  echo "$edges" | awk -v loop="$loop" '
    BEGIN { n = split(loop, m, /[ \n]+/); for (i = 1; i <= n; i++) in_loop[m[i]] = 1 }
    ($1 in in_loop) && ($2 in in_loop) { print $3 ": [include-cycle] " $1 " includes " $2 ", which leads back to " $1 }'
}

# "name file start end linkage" for each C function of the given files: a
# definition starts at a line at column 0 (not a declaration, typedef or
# initializer) and its body is the "{" ... "}" at column 0 that follows.
functions() {
  awk '
    function emit(end,   s, w, n) {
      s = text; gsub(/__attribute__\(\([^()]*(\([^()]*\))?[^()]*\)\)/, "", s); sub(/\(.*/, "", s)
      n = split(s, w, /[ \t*]+/)
      print w[n], FILENAME, start, end, (text ~ /^static[ \t]/ ? "static" : "extern")
    }
    FNR == 1 { infn = 0; cand = 0 }
    /^[A-Za-z_]/ && !infn && !/;[ \t]*$/ && !/=/ && !/^(typedef|struct|enum|union)[ \t]/ { cand = FNR; text = $0 }
    /^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ && !infn && cand == FNR { start = FNR; infn = 1; next }
    /^\{/ && !infn && cand { start = cand; infn = 1 }
    /^\}/ && infn { emit(FNR); infn = 0; cand = 0 }' "$@" | rel
}

# "name file line" for each non-static function defined in src/*.c.
function_defs() { functions "$root"/src/*.c | awk '$5 == "extern" { print $1, $2, $3 }'; }

# "name file line" for each name followed by "(" in a src/*.c file
# (comments and strings dropped), first occurrence per file.
function_calls() {
  local f
  for f in "$root"/src/*.c; do
    awk -v file="${f#"$root"/}" '
      { line = $0; out = ""
        while (length(line) > 0) {
          if (incomment) { p = index(line, "*/"); if (!p) { line = "" } else { line = substr(line, p + 2); incomment = 0 } }
          else { p = index(line, "/*")
                 if (!p) { out = out line; line = "" } else { out = out substr(line, 1, p - 1); line = substr(line, p + 2); incomment = 1 } }
        }
        sub(/\/\/.*/, "", out); gsub(/"([^"\\]|\\.)*"/, "\"\"", out)
        while (match(out, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
          name = substr(out, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
          if (!(name in seen)) { seen[name] = 1; print name, file, FNR }
          out = substr(out, RSTART + RLENGTH)
        }
      }' "$f"
  done
}

check_call_cycles() {
  local tmp edges loop
  tmp=$(mktemp -d)
  function_defs | sort -k1,1 > "$tmp/defs"
  function_calls | sort -k1,1 > "$tmp/calls"
  # caller callee caller:line name
  functions "$root"/src/*.c | awk '{ print $1 "@" $2 }' > "$tmp/local"
  edges=$(join "$tmp/calls" "$tmp/defs" |
    awk -v local="$tmp/local" 'BEGIN { while ((getline l < local) > 0) own[l] = 1 }
      $2 != $4 && !(($1 "@" $2) in own) { print $2, $4, $2 ":" $3, $1 }' | sort -u -k1,2)
  rm -rf "$tmp"
  loop=$(echo "$edges" | awk 'NF { print $1, $2 }' | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
  [ -z "$loop" ] && return 0
  echo "$edges" | awk -v loop="$loop" '
    BEGIN { n = split(loop, m, /[ \n]+/); for (i = 1; i <= n; i++) in_loop[m[i]] = 1 }
    ($1 in in_loop) && ($2 in in_loop) { print $3 ": [call-cycle] " $1 " calls " $2 " (" $4 "), which leads back to " $1 }'
}

check_file_length() {
  wc -l $(c_files) | grep -v ' total$' | rel |
    awk -v max="$MAX_FILE_LINES" '$1 > max { print $2 ":1: [file-length] " $1 " lines, over " max }'
}

check_function_length() {
  functions $(c_files) | awk -v max="$MAX_FUNCTION_LINES" '
    $4 - $3 + 1 > max { print $2 ":" $3 ": [function-length] " $1 "(), " $4 - $3 + 1 " lines, over " max }'
}

# Functions that meet other threads without opening the region they meet
# in: their names say who meets, or their signatures take the barrier.
check_hidden_barriers() {
  functions "$root"/src/*.c | awk -v root="$root/" '
    NR == FNR { n++; name[n] = $1; file[n] = $2; lo[n] = $3; hi[n] = $4
                if (!(file[n] in first)) first[file[n]] = n; next }
    FNR == 1 { rel = substr(FILENAME, length(root) + 1); k = (rel in first) ? first[rel] : n + 1 }
    { while (k <= n && file[k] == rel && hi[k] < FNR) k++
      if (k > n || file[k] != rel || FNR < lo[k]) next
      if (FNR <= lo[k] + 2 && /fl_barrier[ \t]*\*/) signed[k] = 1
      if (/FL_OMP\(parallel/) region[k] = 1
      if (/FL_OMP\((barrier|single|for)|fl_barrier_wait\(/ && !meet[k]) meet[k] = FNR }
    END { for (k = 1; k <= n; k++)
            if (meet[k] && !region[k] && !signed[k] && name[k] !~ /team|group|round|barrier/)
              print file[k] ":" meet[k] ": [hidden-barrier] " name[k] "() meets other threads outside its region: name it for who meets (team, group) or pass the barrier" }
  ' - "$root"/src/*.c
}

# The mode table: "name kind" per mode, from src/fl_solve.c.
mode_table() {
  grep -E '^[[:space:]]*\[FL_MODE_[A-Z0-9_]+\][[:space:]]*=' "$root/src/fl_solve.c" |
    awk -F'"' '{ print $2, $4 }'
}

check_mode_lists() {
  local table files
  table=$(mode_table | tr '\n' ';')
  [ -z "$table" ] && { echo "src/fl_solve.c:1: [mode-list] no mode table found"; return; }
  files=$(ls "$root"/R/*.R "$root"/tests/*.R "$root"/tests/testthat/*.R 2>/dev/null)
  [ -z "$files" ] && return 0
  awk -v table="$table" '
    function sorted(list,   n, a, i, j, t, s) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      s = ""; for (i = 1; i <= n; i++) if (i == 1 || a[i] != a[i - 1]) s = s (s == "" ? "" : " ") a[i]
      return s
    }
    BEGIN {
      nm = split(table, rows, ";"); nk = 0
      for (i = 1; i <= nm; i++) { if (rows[i] == "") continue; split(rows[i], f, " ")
        if (!(f[2] in kid)) { kid[f[2]] = nk; kname[nk] = f[2]; nk++ }
        members[kid[f[2]]] = members[kid[f[2]]] " " f[1] }
      for (mask = 1; mask < 2 ^ nk; mask++) {   # every union of kinds
        list = ""; kinds = ""; rest = mask
        for (k = 0; k < nk; k++) { if (rest % 2) { list = list members[k]; kinds = kinds (kinds == "" ? "" : ", ") "\"" kname[k] "\"" }
                                   rest = int(rest / 2) }
        s = sorted(list); if (split(s, tmp, " ") >= 2) union[s] = kinds
      }
    }
    /^[ \t]*#/ { next }
    { code = $0; sub(/[ \t]#[^"]*$/, "", code)
      while (match(code, /c\([ \t]*"[^"]*"([ \t]*,[ \t]*"[^"]*")*[ \t]*\)/)) {
        lit = substr(code, RSTART, RLENGTH); code = substr(code, RSTART + RLENGTH)
        gsub(/^c\(|\)$|"|,/, " ", lit); s = sorted(lit)
        if (s in union) print FILENAME ":" FNR ": [mode-list] every mode of kind(s) " union[s] " written out: use facility_modes(kind)"
      }
    }' $files | rel
}

run_checks() {
  [ -d "$root/src" ] || die "no src/ under $root"
  local out
  out=$(check_openmp; check_tunables; check_teams; check_mode_enum; check_include_cycles; check_call_cycles
        check_file_length; check_function_length; check_hidden_barriers; check_mode_lists)
  if [ -n "$out" ]; then
    echo "$out"
    echo "check-conventions: $(echo "$out" | wc -l) violation(s) (rules: src/README.md, tools/check-conventions.sh)"
    return 1
  fi
  echo "check-conventions: OK ($(c_files | wc -l) src files, $(function_defs | wc -l) external functions, $(mode_table | wc -l) modes)"
}

source "$(dirname "$0")/check-conventions-selftest.sh"

case "${1:-}" in
  --self-test) self_test "$(cd "$(dirname "$0")/.." && pwd)" ;;
  --root) root=$(cd "${2:?--root needs a directory}" && pwd); run_checks ;;
  "") root=$(cd "$(dirname "$0")/.." && pwd); run_checks ;;
  *) die "unknown argument $1 (see the head of $0)" ;;
esac
