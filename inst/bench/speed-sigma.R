# Speed of the default matrix-free mode at the kernel width a user gets
# (the median heuristic, facility_sigma()) beside the specification's
# sigma = 20 (issue 53).  For "medium" (n = 12000) and "large" (n = 30000),
# k = 100, each sigma: one exhaustive pass at 1 thread
# (facility_pass_time(), the median of 3: before, between and after the
# solves), nhpc at 1 and 2 threads (medians of FACLOC_BENCH_REPS runs,
# default 5, the thread counts interleaved), its share of the pass, its
# evaluations and pairs.  With big = "yes", then n = 1e6 points of the
# "large" mixture at 2 threads, once per sigma.
#
#   Rscript inst/bench/speed-sigma.R [outdir] [big]
#
# Timings mean something only on a quiet machine: check `uptime` first.
# About 3 minutes on 2 cores without the 1e6 rows.
args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results")
big <- length(args) >= 2 && args[2] == "yes"
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
reps <- as.integer(Sys.getenv("FACLOC_BENCH_REPS", "5"))
k <- 100L

one_row <- function(preset, n, sigma_rule, X, sigma, seconds, fit, pass) {
  data.frame(preset = preset, n = n, k = k, sigma_rule = sigma_rule, sigma = sigma,
             threads = fit$threads, seconds = seconds, pass_seconds = pass,
             share_of_pass = if (is.na(pass)) NA else seconds / pass,
             evaluations = fit$evaluations, pairs = fit$pairs,
             pairs_share = fit$pairs / (as.numeric(n) * n), rounds = fit$rounds,
             objective = fit$objective)
}

side_by_side <- function(preset) {
  X <- facility_data(preset)
  rows <- list()
  for (rule in c("20", "median")) {
    sigma <- if (rule == "20") 20 else facility_sigma(X)
    passes <- numeric()
    time_pass <- function()
      passes <<- c(passes, as.numeric(facility_pass_time(X, sigma = sigma, threads = 1)))
    run <- function(threads) {
      t0 <- proc.time()[["elapsed"]]
      fit <- facility_greedy(X, k, mode = "nhpc", sigma = sigma, threads = threads)
      list(fit = fit, seconds = proc.time()[["elapsed"]] - t0)
    }
    time_pass()
    first <- interleaved_runs(1:2, ceiling(reps / 2), run)
    time_pass()
    second <- interleaved_runs(1:2, reps - ceiling(reps / 2), run)
    time_pass()
    for (threads in 1:2) {
      runs <- c(first[[threads]], second[[threads]])
      secs <- median(vapply(runs, function(r) r$fit$seconds, 0))
      rows[[length(rows) + 1]] <- one_row(preset, nrow(X), rule, X, sigma, secs,
                                          runs[[1]]$fit, median(passes))
    }
    cat(sprintf("%s sigma %s done\n", preset, rule))
  }
  do.call(rbind, rows)
}

rows <- rbind(side_by_side("medium"), side_by_side("large"))
if (big) {
  X <- facility_data("large", n = 1e6)
  for (rule in c("20", "median")) {
    sigma <- if (rule == "20") 20 else facility_sigma(X)
    fit <- facility_greedy(X, k, mode = "nhpc", sigma = sigma, threads = 2)
    rows <- rbind(rows, one_row("large", nrow(X), rule, X, sigma, fit$seconds, fit, NA))
    cat(sprintf("n = 1e6 sigma %s: %.1f s\n", rule, fit$seconds))
  }
}
print(rows, digits = 4)
write.csv(rows, file.path(outdir, "speed-sigma.csv"), row.names = FALSE)
write_machine(file.path(outdir, "speed-sigma-machine.txt"))
