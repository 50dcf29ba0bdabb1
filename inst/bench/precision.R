# facility_control(precision = "single") against "double" in mode "dc"
# (issue 57): the loss in f(S), the change of the bound, the time and the
# peak memory.
#
#   Rscript inst/bench/precision.R [outdir] [--quick]
#
# Quality (precision.csv, part "quality"): every numeric data set of R's
# base and recommended packages with at least 100 complete rows (at most
# 2000, sampled), the families of quality-families.R (n = 3000) and the 12
# presets at n = 4000; sigma 0.25, 1 and 2 times the median heuristic;
# k = 20 and 100 (k < n/2); one thread.  Both objectives are f(S) in
# double precision (what each call reports), so their ratio is the loss.
#
# Time and memory (part "cost"): unit-length embedding points n = 10000, d
# = 128 and 1024, k = 100 and 1000, and the preset "medium" (n = 12000, d
# = 32), k = 100; 2 threads, the two precisions alternated twice, the
# faster time kept; peak resident memory above the process's before the
# call (VmHWM, Linux).  Timings mean something only on a quiet machine:
# check `uptime` first.  About 6 minutes on 2 cores.
args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
args <- setdiff(args, "--quick")
outdir <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
source(file.path(here, "quality-families.R"))
library_facloc()
options(facloc.memory_limit = 16 * 2^30)
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)

fit_dc <- function(X, k, sigma, precision, threads) {
  facility_greedy(X, k, mode = "dc", sigma = sigma, threads = threads,
                  control = facility_control(precision = precision))
}

# One row per data set, sigma and k: f(S) of single over double, and
# whether the picks are the same (in order).
quality_rows <- function(name, X) {
  median_sigma <- facility_sigma(X)
  rows <- list()
  for (scale in c(0.25, 1, 2)) for (k in c(20L, 100L)) {
    if (2 * k >= nrow(X)) next
    sigma <- scale * median_sigma
    d <- fit_dc(X, k, sigma, "double", 1)
    s <- fit_dc(X, k, sigma, "single", 1)
    differ <- which(s$selected != d$selected)
    rows[[length(rows) + 1]] <- data.frame(
      part = "quality", data = name, n = nrow(X), d = ncol(X), k = k,
      sigma_scale = scale, ratio = s$objective / d$objective, bound_ratio = s$bound / d$bound,
      same_picks = identical(s$selected, d$selected),
      first_difference = if (length(differ)) min(differ) else NA_integer_,
      seconds_double = NA, seconds_single = NA, peak_mb_double = NA, peak_mb_single = NA)
  }
  do.call(rbind, rows)
}

quality_data <- function() {
  sets <- r_data_sets(min_n = 100, max_n = 2000, verbose = FALSE)
  for (name in own_family_names()) sets[[name]] <- own_family(name, n = 3000)
  for (name in facility_presets()$name)
    sets[[name]] <- facility_data(name, n = 4000, seed = 1)
  if (quick) sets <- sets[c(1:3, length(sets))]
  sets
}

cost_row <- function(name, X, k) {
  sigma <- facility_sigma(X)
  runs <- list(double = list(), single = list())
  for (rep in 1:2) for (precision in names(runs)) {
    gc()
    runs[[precision]][[rep]] <- facloc:::measure_run(fit_dc(X, k, sigma, precision, 2))
  }
  best <- function(p) min(vapply(runs[[p]], `[[`, 0, "seconds"))
  peak <- function(p) max(vapply(runs[[p]], function(r) r$peak_bytes - r$baseline_bytes, 0)) / 2^20
  d <- runs$double[[1]]$value
  s <- runs$single[[1]]$value
  data.frame(part = "cost", data = name, n = nrow(X), d = ncol(X), k = k, sigma_scale = 1,
             ratio = s$objective / d$objective, bound_ratio = s$bound / d$bound,
             same_picks = identical(s$selected, d$selected),
             first_difference = if (identical(s$selected, d$selected)) NA_integer_
                                else min(which(s$selected != d$selected)),
             seconds_double = best("double"), seconds_single = best("single"),
             peak_mb_double = peak("double"), peak_mb_single = peak("single"))
}

sets <- quality_data()
rows <- list()
for (name in names(sets)) {
  rows[[name]] <- quality_rows(name, sets[[name]])
  cat(sprintf("%-40s worst ratio %.9f\n", name, min(rows[[name]]$ratio)))
}
n_cost <- if (quick) 2000L else 10000L
for (d in c(128L, 1024L)) {
  X <- embedding_points(n_cost, d)
  for (k in c(100L, 1000L)) rows[[paste("emb", d, k)]] <- cost_row(sprintf("embeddings_d%d", d), X, k)
}
rows[["medium"]] <- cost_row("medium", facility_data("medium", seed = 1), 100L)
out <- do.call(rbind, rows)
rownames(out) <- NULL
write.csv(out, file.path(outdir, "precision.csv"), row.names = FALSE)
write_machine(file.path(outdir, "precision-machine.txt"))

q <- out[out$part == "quality", ]
cat(sprintf("quality: %d cells on %d data sets; single / double f(S): worst %.9f, median %.12f; same picks in %d (%.1f%%); bound single / double %.7f to %.7f\n",
            nrow(q), length(unique(q$data)), min(q$ratio), stats::median(q$ratio),
            sum(q$same_picks), 100 * mean(q$same_picks), min(q$bound_ratio), max(q$bound_ratio)))
print(out[out$part == "cost", c("data", "n", "d", "k", "ratio", "same_picks",
                                 "seconds_double", "seconds_single", "peak_mb_double",
                                 "peak_mb_single")], row.names = FALSE)
