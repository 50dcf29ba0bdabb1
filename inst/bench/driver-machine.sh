# Sourced by the standalone driver's scripts (pass-share.sh,
# device-scaling.sh, two-thread-pairs.sh) after they set `here` (this
# folder):
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
