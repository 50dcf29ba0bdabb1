# Sourced by the standalone driver's scripts (pass-share.sh,
# device-scaling.sh, two-thread-pairs.sh): driver_machine FILE [LINE...]
# writes the machine file beside their results, the date, the compiler,
# the driver's flags and the CPUs, then each LINE.
driver_machine() {
  local file=$1
  shift
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "compiler: $(gcc --version | head -1)"
    echo "cflags: -std=gnu99 -g -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fopenmp (inst/bench/GNUmakefile)"
    echo "nproc: $(nproc)"
    lscpu | grep -E '^(Model name|CPU family|Socket|Core|Thread|NUMA node\(s\)|L3)' || true
    printf '%s\n' "$@"
  } > "$file"
}
