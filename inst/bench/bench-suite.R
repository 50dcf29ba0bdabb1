# The benchmark suite behind the vignette "Reproducing the scaling tables":
# all twelve presets of facility_presets(), all six modes, each thread count,
# `reps` repetitions, d = 32, k = 100, sigma = 20.  Rows are appended to
# results/suite.csv as each run finishes, and the machine is described in
# results/suite-machine.txt.
#
#   Rscript inst/bench/bench-suite.R                 # threads 1 and 2
#   FACLOC_BENCH_THREADS=1,2,4,8,16 Rscript inst/bench/bench-suite.R
#
# Settings (environment variables):
#   FACLOC_BENCH_THREADS  thread counts, "1,2" (default) or a range "1:16"
#   FACLOC_BENCH_REPS     repetitions per combination (default 3)
#   FACLOC_BENCH_MODES    modes (default g,c,dc,hc,hpc,nhpc)
#   FACLOC_BENCH_PRESETS  presets or suites (default: all twelve)
#   FACLOC_BENCH_N        shrink every preset to this many points (quick check)
#   FACLOC_BENCH_OUT      output CSV (default inst/bench/results/suite.csv)
#   FACLOC_BENCH_MEMORY_GB memory limit for the exact modes (default 16: the
#                         30000-point set needs 7.2 GB for W)
#
# Resumable: a preset and mode whose rows are all in the CSV (without error)
# is skipped; a partly done or failed one is removed from the CSV and run
# again.  So an interrupted run continues where it stopped, and a run with
# more thread counts adds only the new mode/preset combinations (delete the
# CSV to start over).  Set FACLOC_BENCH_OUT to keep results of different
# machines apart.
#
# Duration on the 2-core development machine (threads 1,2, 3 reps), estimated
# from runs of the small preset and of nhpc on all presets: about 1.5 hours,
# half of it mode "g" (every round scans all of W: about 4 s per run at
# n = 4000, 35 s at 12000 and 4 minutes at 30000 on one quiet core); c and dc
# about 15 minutes (building W dominates); hc, hpc and nhpc about 20 minutes
# (nhpc alone took 8 minutes, weak_cluster being the slowest preset).
# FACLOC_BENCH_REPS=1 cuts it to about 30 minutes.  The script must not be
# edited while it runs (R reads it as it goes).  Run it on a quiet machine:
# the waiting threads of the parallel modes collapse when other processes
# compete for the cores, and the load average is recorded in the machine
# file.  On a machine that
# cannot be quiet, OMP_WAIT_POLICY=passive (set before R starts) avoids most
# of that collapse (nhpc, small preset, 2 threads on a busy 2-core machine:
# 2.5 s with the default active waiting, 0.3 s passive; 1 thread: 0.2 s);
# the OpenMP settings in force are recorded too.
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()

setting <- function(name, default) {
  value <- Sys.getenv(name)
  if (nzchar(value)) value else default
}
parse_list <- function(x) trimws(strsplit(x, ",", fixed = TRUE)[[1]])
parse_threads <- function(x) {
  if (grepl(":", x, fixed = TRUE)) {
    ends <- as.integer(strsplit(x, ":", fixed = TRUE)[[1]])
    return(seq(ends[1], ends[2]))
  }
  as.integer(parse_list(x))
}

threads <- parse_threads(setting("FACLOC_BENCH_THREADS", "1,2"))
reps <- as.integer(setting("FACLOC_BENCH_REPS", "3"))
modes <- parse_list(setting("FACLOC_BENCH_MODES", "g,c,dc,hc,hpc,nhpc"))
presets <- parse_list(setting("FACLOC_BENCH_PRESETS", paste(facility_presets()$name, collapse = ",")))
n <- if (nzchar(Sys.getenv("FACLOC_BENCH_N"))) as.integer(Sys.getenv("FACLOC_BENCH_N"))
out <- setting("FACLOC_BENCH_OUT", file.path("inst", "bench", "results", "suite.csv"))
options(facloc.memory_limit = as.double(setting("FACLOC_BENCH_MEMORY_GB", "16")) * 2^30)
dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)

# Combinations still to run for one preset; drops their partial rows.
todo_modes <- function(preset) {
  if (!file.exists(out)) return(modes)
  done <- read_benchmark(out)
  mine <- done$preset == preset & done$mode %in% modes
  complete <- vapply(modes, function(m) {
    rows <- done[mine & done$mode == m & is.na(done$error), , drop = FALSE]
    all(vapply(threads, function(t) all(seq_len(reps) %in% rows$rep[rows$threads == t]),
               logical(1)))
  }, logical(1))
  redo <- modes[!complete]
  stale <- done$preset == preset & done$mode %in% redo
  if (any(stale))
    utils::write.csv(as.data.frame(done[!stale, , drop = FALSE]), out, row.names = FALSE)
  redo
}

# The 1-minute load average: timings taken on a busy machine are noisy.
load_average <- function() {
  if (!file.exists("/proc/loadavg")) return(NA_character_)
  strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1]][1]
}

started <- Sys.time()
load_start <- load_average()
machine <- sub("\\.csv$", "-machine.txt", out)
write_machine(machine)
cat(sprintf("suite: %d presets, modes %s, threads %s, %d reps -> %s\n", length(presets),
            paste(modes, collapse = ","), paste(threads, collapse = ","), reps, out))
for (preset in presets) {
  todo <- todo_modes(preset)
  if (!length(todo)) {
    cat(sprintf("%s: already done\n", preset))
    next
  }
  bench <- facility_benchmark(preset, modes = todo, threads = threads, reps = reps,
                              n = n, file = out)
  if (isTRUE(attr(bench, "interrupted"))) {
    cat("interrupted: run the script again to continue\n")
    break
  }
}
cat(sprintf("suite finished in %.1f minutes\n",
            as.double(difftime(Sys.time(), started, units = "mins"))))
# record the thread counts and settings beside the machine description
omp <- Sys.getenv(c("OMP_WAIT_POLICY", "OMP_PROC_BIND", "OMP_PLACES", "GOMP_SPINCOUNT"))
cat(sprintf("openmp_env: %s\n", paste(names(omp), ifelse(nzchar(omp), omp, "(unset)"),
                                      sep = "=", collapse = " ")),
    file = machine, append = TRUE)
cat(sprintf("threads: %s\nreps: %d\nmodes: %s\nn: %s\nmemory_limit: %s\nload_average: %s at start, %s at end\nminutes: %.1f\n",
            paste(threads, collapse = ","), reps, paste(modes, collapse = ","),
            if (is.null(n)) "preset sizes" else n, format(getOption("facloc.memory_limit")),
            load_start, load_average(),
            as.double(difftime(Sys.time(), started, units = "mins"))),
    file = machine, append = TRUE)
print(scaling_table(read_benchmark(out)), digits = 3)
