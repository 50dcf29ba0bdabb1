# Sourced by the standalone driver's scripts (pass-share.sh,
# device-scaling.sh, two-thread-pairs.sh, build-pairs.sh) after they set
# `here` (this folder):
#   driver_start OUT NAME BUILD [LINE...]
# makes OUT, writes OUT/NAME-machine.txt (the date, the compiler, the
# driver's flags and the CPUs, then each LINE) and builds the driver into
# BUILD.
driver_start() {
  local out=$1 name=$2 build=$3
  shift 3
  mkdir -p "$out"
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "compiler: $(gcc --version | head -1)"
    echo "cflags: -std=gnu99 -g -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fopenmp (inst/bench/GNUmakefile)"
    echo "nproc: $(nproc)"
    lscpu | grep -E '^(Model name|CPU family|Socket|Core|Thread|NUMA node\(s\)|L3)' || true
    printf '%s\n' "$@"
  } > "$out/$name-machine.txt"
  make -s -C "$here" BUILD="$build" >/dev/null
}

# The pair scripts (two-thread-pairs.sh, build-pairs.sh) set `files` (the
# data files, <preset>_30000.bin) and `pass_driver` (a built driver).
fastest() { cut -d, -f6 | sort -g | head -1; }

# CPU: the faster of 2 passes at n = 2000 over the first data file.
pass_on() {
  taskset -c "$1" "$pass_driver" --pass --threads 1 --n 2000 --d 32 --k 100 --sigma 20 \
    --no-header --input "${files[0]}" --reps 2 | fastest
}

# Both CPUs' passes at once, "CPU0,CPU1": on a shared host two vCPUs
# busy together can each run slower than alone, which a pass on one CPU
# at a time does not show.
pass_both() {
  local f0 f1
  f0=$(mktemp); f1=$(mktemp)
  pass_on 0 > "$f0" & pass_on 1 > "$f1" & wait
  echo "$(cat "$f0"),$(cat "$f1")"
  rm -f "$f0" "$f1"
}

# Nanoseconds per episode of the group barrier of two threads on CPUs 0
# and 1, the faster of 3 runs: on a VM it follows how far apart the host
# runs the two vCPUs.
barrier_ns() {
  GOMP_CPU_AFFINITY="0 1" "$pass_driver" --barrier --threads 2 --reps 3 --no-header |
    fastest | awk '{ printf "%.0f\n", $1 * 1e9 }'
}

# pairs_run SECONDS CSV HEADER MEASURE: rows round the data files until
# SECONDS have passed, each the time, the preset, each CPU's pass before
# and after, what `MEASURE FILE ROW` prints (HEADER names it), both CPUs'
# passes at once before and after, and the barrier before and after,
# into CSV.
pairs_run() {
  local seconds=$1 csv=$2 header=$3 measure=$4 row=0 file b0 b1 bb bn got
  local end=$(( $(date +%s) + seconds ))
  echo "time,preset,pass0_before,pass1_before,pass0_after,pass1_after,$header,both0_before,both1_before,both0_after,both1_after,barrier_before,barrier_after" > "$csv"
  while [ "$(date +%s)" -lt "$end" ]; do
    for file in "${files[@]}"; do
      row=$((row + 1))
      b0=$(pass_on 0); b1=$(pass_on 1); bb=$(pass_both); bn=$(barrier_ns)
      got=$("$measure" "$file" "$row")
      echo "$(date -u +%H:%M:%S),$(basename "$file" _30000.bin),$b0,$b1,$(pass_on 0),$(pass_on 1),$got,$bb,$(pass_both),$bn,$(barrier_ns)" >> "$csv"
    done
  done
}

# Barrier episodes (barrier_ns) at most this long before and after make a
# row "near".  On the 2-vCPU VM of 2026-12-02 the barrier took 88 to 110
# ns in some stretches of minutes and 198 to 298 ns in others (89 of 816
# probes 0.3 to 1 us), none between 110 and 198 (two-thread-pairs.sh, 20
# minutes); a round trip of a cache line between the two CPUs (a probe,
# not kept) took 0.10 to 0.15 us and 0.42 to 0.55 us, and nhpc's planning
# at 2 threads on "large" (n = 30000) took 29 ms of CPU time in one run
# in a fast stretch and 41.5 to 50.3 ms in ten in slow ones, against
# 24.8 to 31.4 ms at 1 thread.
near_ns=150

# pairs_values CSV EXPR: "preset even value quiet near" for each row of
# CSV, sorted by preset and value; value is the awk expression EXPR of the
# row, even is 1 when each CPU's pass took at most 1.1 times the other's,
# before and after, quiet 1 when, besides, each CPU's pass with both busy
# took at most 1.1 times its pass alone, before and after, and near 1 when
# the barrier took at most near_ns before and after (0 in a CSV without
# those columns).
pairs_values() {
  awk -F, -v near_ns="$near_ns" "NR == 1 { for (i = 1; i <= NF; i++) col[\$i] = i }
    function v(name) { return \$(col[name]) }
    NR > 1 {
      b = \$3 > \$4 ? \$3 / \$4 : \$4 / \$3; a = \$5 > \$6 ? \$5 / \$6 : \$6 / \$5
      even = b <= 1.1 && a <= 1.1
      quiet = even && (\"both1_after\" in col) && v(\"both0_before\") <= 1.1 * \$3 &&
        v(\"both1_before\") <= 1.1 * \$4 && v(\"both0_after\") <= 1.1 * \$5 &&
        v(\"both1_after\") <= 1.1 * \$6
      near = (\"barrier_after\" in col) && v(\"barrier_before\") <= near_ns &&
        v(\"barrier_after\") <= near_ns
      print \$2, even, $2, quiet, near
    }" "$1" | sort -k1,1 -k3,3g
}

# An awk function for the summaries of pairs_values: quantile q of a
# sorted, space-separated list, interpolated (R's type 7).
pairs_pick='function pick(list, q,   v, m, h, i) {
    m = split(list, v, " ")
    if (m == 0) return "NA"
    h = (m - 1) * q + 1; i = int(h)
    return i < m ? sprintf("%.4f", v[i] + (h - i) * (v[i + 1] - v[i])) : v[m]
  }'
