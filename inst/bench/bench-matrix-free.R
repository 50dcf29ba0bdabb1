# Issue 3 benchmark: the matrix-free modes hc, hpc, nhpc against the exact
# modes g and dc on the "small", "medium" and "large" presets (n = 4000,
# 12000, 30000; d = 32, k = 100, sigma = 20), at 1 and 2 threads, plus
# nhpc at 2 threads on n = 200,000 and 1,000,000 points of the "large"
# mixture.  Each preset, size and mode runs in a fresh R process, its
# thread counts interleaved; each run resets the peak resident memory it
# reports.  Records seconds, peak memory, evaluations, pairs, f(S) relative
# to exact greedy (mode dc, the same selection as g) and objective / bound.
#
#   Rscript inst/bench/bench-matrix-free.R [output.csv] [threads] [big] [scale]
#
# threads: comma-separated thread counts (default "1,2"; add 4,8,16 on a
# machine with more cores).  big: "yes" (default) also runs n = 2e5 and 1e6.
# scale: multiplies every n (default 1; 0.1 for a quick check of the script).
# On a quiet 2-core machine: about 25 minutes, most of it mode g at
# n = 30000 (it builds the 7.2 GB matrix) and nhpc at n = 1e6.
# FACLOC_BENCH_REUSE=path: copy the rows of modes g and dc from an earlier
# results file instead of running them (their code had not changed).
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results", "matrix-free.csv")
thread_set <- if (length(args) >= 2) as.integer(strsplit(args[2], ",")[[1]]) else 1:2
big <- if (length(args) >= 3) args[3] == "yes" else TRUE
scale <- if (length(args) >= 4) as.numeric(args[4]) else 1
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()
options(width = 200)
options(facloc.memory_limit = 20 * 2^30)

# The matrix-free modes up to n = 30000 run `reps` times at every thread
# count in their process (FACLOC_BENCH_REPS, default 11), the thread counts
# interleaved (see interleaved_runs()); seconds is the median, peak_mb the
# largest peak of the runs (each run resets the peak).
mode_rows <- function(preset, n, mode, threads, k = 100) {
  X <- facility_data(preset, n = n)
  reps <- if (mode %in% c("hc", "hpc", "nhpc") && n <= 30000)
    as.integer(Sys.getenv("FACLOC_BENCH_REPS", "11")) else 1L
  runs <- interleaved_runs(threads, reps, function(t)
    facloc:::measure_run(facility_greedy(X, k, mode = mode, threads = t, sigma = 20)))
  do.call(rbind, lapply(runs, function(runs) {
    fit <- runs[[1]]$value
    seconds <- vapply(runs, function(run) run$seconds, 0)
    data.frame(preset = preset, n = nrow(X), d = ncol(X), k = k, mode = mode,
               threads = fit$threads, seconds = stats::median(seconds),
               all_seconds = paste(sprintf("%.3f", seconds), collapse = " "),
               peak_mb = max(vapply(runs, function(run) run$peak_bytes, 0)) / 2^20,
               baseline_mb = runs[[1]]$baseline_bytes / 2^20,
               evaluations = fit$evaluations, pairs = fit$pairs, rounds = fit$rounds,
               objective = fit$objective, bound = fit$bound)
  }))
}

if (identical(Sys.getenv("FACLOC_BENCH_CHILD"), "1")) {
  spec <- strsplit(args[5], ",")[[1]]
  rows <- mode_rows(spec[1], as.integer(spec[2]), spec[3],
                    as.integer(strsplit(spec[4], ":")[[1]]))
  append_rows(rows, out)
  quit(save = "no")
}

# One fresh R process per preset, size and mode, running every thread count.
child <- function(preset, n, mode, threads) {
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    c(file.path(here, "bench-matrix-free.R"), out, "1", "no", "1",
                      paste(preset, n, mode, paste(threads, collapse = ":"), sep = ",")),
                    env = "FACLOC_BENCH_CHILD=1")
  if (status != 0) stop("benchmark run failed: ", preset, " ", n, " ", mode)
  cat(sprintf("%s n=%d %s done\n", preset, n, mode))
}

reuse <- Sys.getenv("FACLOC_BENCH_REUSE")
exact_rows <- if (nzchar(reuse)) {
  old <- read.csv(reuse, comment.char = "#")
  old <- old[old$mode %in% c("g", "dc"), ]
  old$all_seconds <- sprintf("%.3f", old$seconds)
  old$note <- paste("reused from", basename(reuse))
  old
}
if (file.exists(out)) file.remove(out)
sizes <- round(c(small = 4000, medium = 12000, large = 30000) * scale)
for (preset in names(sizes)) for (mode in c("g", "dc", "hc", "hpc", "nhpc"))
  if (is.null(exact_rows) || !mode %in% c("g", "dc")) child(preset, sizes[[preset]], mode, thread_set)
if (big) for (n in round(c(200000, 1000000) * scale)) child("large", n, "nhpc", 2L)

res <- read.csv(out)
res$note <- ""
if (!is.null(exact_rows)) res <- rbind(res, exact_rows[names(res)])
# f(S) relative to exact greedy of the same data set (dc = g's selection)
ref <- res[res$mode == "dc", c("preset", "n", "objective")]
ref <- ref[!duplicated(ref[c("preset", "n")]), ]
names(ref)[3] <- "greedy_objective"
res <- merge(res, ref, by = c("preset", "n"), all.x = TRUE, sort = FALSE)
res$quality <- res$objective / res$greedy_objective
res$certificate <- res$objective / res$bound
res$pairs_per_n2 <- res$pairs / (as.double(res$n) * res$n)
res <- res[order(res$n, match(res$mode, c("g", "dc", "hc", "hpc", "nhpc")), res$threads), ]
write.csv(res, out, row.names = FALSE)
write_machine(sub("\\.csv$", "-machine.txt", out))
print(res[c("preset", "n", "mode", "threads", "seconds", "peak_mb", "evaluations",
            "pairs_per_n2", "quality", "certificate")], row.names = FALSE)

# the targets of issue 3 on the 30000-point set
l <- res[res$n == sizes[["large"]], ]
sec <- function(m, t) l$seconds[l$mode == m & l$threads == t]
if (all(c(1L, 2L) %in% thread_set)) {
  cat(sprintf("nhpc 1T vs g 1T: %.1fx faster (target >= 10)\n", sec("g", 1) / sec("nhpc", 1)))
  fast <- function(m, t) fastest_run(l$all_seconds[l$mode == m & l$threads == t])
  for (m in c("hpc", "nhpc"))
    cat(sprintf("%s 2T vs 1T: %.2fx by the medians, %.2fx by the fastest runs (target >= 1.8)\n",
                m, sec(m, 1) / sec(m, 2), fast(m, 1) / fast(m, 2)))
}
cat(sprintf("worst quality of hc/hpc/nhpc: %.5f (target >= 0.999)\n",
            min(res$quality[res$mode %in% c("hc", "hpc", "nhpc")], na.rm = TRUE)))
