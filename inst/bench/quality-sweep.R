# Quality sweep of the relaxed modes (issue 53): hc, hpc and nhpc at their
# default control, 1 and 2 threads, against exact greedy (mode "dc",
# 1 thread) on data unlike the Gaussian blobs the other benchmarks use.
#
#   Rscript inst/bench/quality-sweep.R [outdir]
#   FACLOC_SWEEP_OUT=dir FACLOC_SWEEP_QUICK=1 Rscript inst/bench/quality-sweep.R
#
# Data (helpers in quality-families.R):
#   "R data": every data object of R's datasets and recommended packages
#     that gives a numeric matrix of at least 100 rows: the numeric columns
#     (integer or double) of a data frame or matrix, complete and finite rows
#     only, constant columns dropped, not standardised; identical matrices
#     once; above FACLOC_SWEEP_MAX_N rows (default 5000) a sample of that
#     many rows drawn with set.seed(1), kept in their original order.
#   "preset": the 12 presets of facility_presets() at n = 4000 (seed 1).
#   "own": the families of own_family() at n = 3000, seed 1 (rings and a
#     spiral in R^8, multivariate t with 1.5 and 1 df, axis scales 1 to
#     1000, 40 distinct points repeated exactly or with 1e-6 jitter, uniform
#     in the unit square, a sample of an integer grid in the plane).
# sigma = 0.1, 0.25, 0.5, 1 and 2 times facility_sigma(X) (the median
# heuristic), k = 5, 20, 50, 100 with k < n / 2.  Exact greedy runs once per
# data set and sigma at the largest k; its objective at a smaller k is that
# of its first k picks (greedy's selections are nested), fit$trace.
#
# Columns of quality-sweep.csv: family, data, n, d, sigma_mult, sigma, k,
# mode, threads, objective, exact (greedy's objective), quality =
# objective / exact, picks (length of the selection), objective_r (f of the
# selection recomputed in plain R), min_gain_rel (the smallest true
# marginal gain of a pick, in selection order, relative to the largest
# true gain of the picks before it), zero_gain_pick (TRUE when some pick's
# true gain is <= 1e-12 relative while some candidate's true gain at that
# point is above it), zero_gain_step and zero_gain_best (the first such
# pick and the best candidate's relative gain there), seconds, error.
# The true gains are computed in R from the kernel exp(-|x - y|^2 /
# (2 sigma^2)) with a running coverage vector (O(n k)); all candidates'
# gains (O(n^2)) only where a pick's gain is <= 1e-12 relative.
# FACLOC_SWEEP_ONLY (a regular expression on data names) runs a subset;
# FACLOC_SWEEP_SUMMARY_ONLY=1 only rewrites the summary from outdir's CSV.
# Writes quality-sweep.csv, quality-sweep-summary.txt,
# quality-sweep-skipped.csv (data objects left out and why) and
# quality-sweep-machine.txt.
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
outdir <- if (length(args)) args[1] else Sys.getenv("FACLOC_SWEEP_OUT",
                                                    file.path("inst", "bench", "results"))
quick <- nzchar(Sys.getenv("FACLOC_SWEEP_QUICK")) && Sys.getenv("FACLOC_SWEEP_QUICK") != "0"
max_n <- as.integer(Sys.getenv("FACLOC_SWEEP_MAX_N", "5000"))
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
source(file.path(here, "machine.R"))
source(file.path(here, "quality-families.R"))
library_facloc()

sigma_mults <- c(0.1, 0.25, 0.5, 1, 2)
ks <- c(5L, 20L, 50L, 100L)
modes <- c("hc", "hpc", "nhpc")
csv <- file.path(outdir, "quality-sweep.csv")
summary_only <- Sys.getenv("FACLOC_SWEEP_SUMMARY_ONLY") %in% c("1", "true", "TRUE")
if (!summary_only && file.exists(csv)) file.remove(csv)

# Squared distances from every row of X to row j, computed directly (no
# |x|^2 + |y|^2 - 2 x.y cancellation).
sq_dist_to <- function(X, j) rowSums((X - rep(X[j, ], each = nrow(X)))^2)

# The true marginal gains of all candidates given coverage `cover`, in
# blocks of 256 candidates.
all_gains <- function(X, sigma, cover) {
  n <- nrow(X)
  norms <- rowSums(X^2)
  gains <- numeric(n)
  for (start in seq(1, n, by = 256)) {
    idx <- start:min(n, start + 255)
    D2 <- pmax(outer(norms, norms[idx], "+") - 2 * tcrossprod(X, X[idx, , drop = FALSE]), 0)
    gains[idx] <- colSums(pmax(exp(-D2 / (2 * sigma^2)) - cover, 0))
  }
  gains
}

# True marginal gains of the picks in order, and the zero-gain check.
check_picks <- function(X, sigma, selected) {
  cover <- numeric(nrow(X))
  gains <- numeric(length(selected))
  ref <- 0
  min_rel <- Inf
  zero <- FALSE; zero_step <- NA_integer_; zero_best <- NA_real_
  exhausted <- FALSE   # no candidate had positive gain: none will later
  for (i in seq_along(selected)) {
    s <- exp(-sq_dist_to(X, selected[i]) / (2 * sigma^2))
    gains[i] <- sum(pmax(s - cover, 0))
    if (i > 1) {
      rel <- gains[i] / ref
      min_rel <- min(min_rel, rel)
      # all candidates' gains (O(n^2)) only where the pick's gain is ~0; a
      # 1e-9 trigger ran them at nearly every pick on jittered duplicates
      if (!zero && !exhausted && rel <= 1e-12) {
        others <- all_gains(X, sigma, cover)
        others[selected[seq_len(i - 1)]] <- 0
        best <- max(others) / ref
        if (best <= 1e-12) exhausted <- TRUE
        else if (rel <= 1e-12) {
          zero <- TRUE; zero_step <- i; zero_best <- best
        }
      }
    }
    ref <- max(ref, gains[i])
    cover <- pmax(cover, s)
  }
  list(objective_r = sum(cover), min_gain_rel = if (is.finite(min_rel)) min_rel else NA_real_,
       zero = zero, zero_step = zero_step, zero_best = zero_best)
}

sweep_one <- function(family, name, X) {
  started <- proc.time()[["elapsed"]]
  storage.mode(X) <- "double"
  n <- nrow(X); d <- ncol(X)
  k_set <- ks[ks < n / 2]
  base <- facility_sigma(X)
  rows <- list()
  for (mult in sigma_mults) {
    sigma <- mult * base
    greedy <- tryCatch(facility_greedy(X, max(k_set), mode = "dc", threads = 1, sigma = sigma),
                       error = function(e) e)
    if (inherits(greedy, "error")) {
      rows[[length(rows) + 1]] <- data.frame(
        family = family, data = name, n = n, d = d, sigma_mult = mult, sigma = sigma,
        k = NA, mode = "dc", threads = 1L, objective = NA, exact = NA, quality = NA,
        picks = NA, objective_r = NA, min_gain_rel = NA, zero_gain_pick = NA,
        zero_gain_step = NA, zero_gain_best = NA, seconds = NA,
        error = conditionMessage(greedy))
      next
    }
    for (k in k_set) {
      exact <- greedy$trace$objective[greedy$trace$size == k]
      if (quick && k < max(k_set)) {   # check the nested-greedy shortcut
        direct <- facility_greedy(X, k, mode = "dc", threads = 1, sigma = sigma)$objective
        if (abs(direct - exact) > 1e-9 * exact)
          warning(sprintf("%s sigma x%g k %d: greedy trace %.10g, direct run %.10g",
                          name, mult, k, exact, direct))
      }
      for (mode in modes) for (threads in 1:2) {
        fit <- tryCatch(facility_greedy(X, k, mode = mode, threads = threads, sigma = sigma),
                        error = function(e) e)
        err <- if (inherits(fit, "error")) conditionMessage(fit) else NA_character_
        chk <- if (is.na(err)) check_picks(X, sigma, fit$selected)
        rows[[length(rows) + 1]] <- data.frame(
          family = family, data = name, n = n, d = d, sigma_mult = mult, sigma = sigma,
          k = k, mode = mode, threads = threads,
          objective = if (is.na(err)) fit$objective else NA, exact = exact,
          quality = if (is.na(err)) fit$objective / exact else NA,
          picks = if (is.na(err)) length(fit$selected) else NA,
          objective_r = if (is.na(err)) chk$objective_r else NA,
          min_gain_rel = if (is.na(err)) chk$min_gain_rel else NA,
          zero_gain_pick = if (is.na(err)) chk$zero else NA,
          zero_gain_step = if (is.na(err)) chk$zero_step else NA,
          zero_gain_best = if (is.na(err)) chk$zero_best else NA,
          seconds = if (is.na(err)) fit$seconds else NA, error = err)
      }
    }
  }
  rows <- do.call(rbind, rows)
  append_rows(rows, csv)
  q <- rows$quality
  cat(sprintf("[%6.0f s] %-7s %-32s n %5d d %3d: %3d cells, min quality %.5f, below 0.999 %d, zero-gain %d, errors %d (%.1f s)\n",
              proc.time()[["elapsed"]] - t0, family, name, n, d, sum(!is.na(q)),
              if (any(!is.na(q))) min(q, na.rm = TRUE) else NA, sum(q < 0.999, na.rm = TRUE),
              sum(rows$zero_gain_pick, na.rm = TRUE), sum(!is.na(rows$error)),
              proc.time()[["elapsed"]] - started))
  flush.console()
}

data_errors <- character()
preset_n <- if (quick) 1000L else 4000L
own_n <- if (quick) 1000L else 3000L
elapsed <- NA_real_
if (!summary_only) {
t0 <- proc.time()[["elapsed"]]
safe_sweep <- function(family, name, X) {
  tryCatch(sweep_one(family, name, X), error = function(e) {
    data_errors[[length(data_errors) + 1]] <<- sprintf("%s %s: %s", family, name, conditionMessage(e))
    cat(sprintf("ERROR %s %s: %s\n", family, name, conditionMessage(e)))
  })
}

# (a) R's data sets
sets <- r_data_sets(max_n = max_n)
skipped <- attr(sets, "skipped")
write.csv(skipped, file.path(outdir, "quality-sweep-skipped.csv"), row.names = FALSE)
only <- Sys.getenv("FACLOC_SWEEP_ONLY")   # a regular expression on data names
if (quick) sets <- sets[intersect(c("datasets::quakes", "datasets::iris", "MASS::bacteria",
                                    "datasets::faithful"), names(sets))]
cat(sprintf("R data: %d data sets (%d objects skipped), n capped at %d\n",
            length(sets), NROW(skipped), max_n))
if (nzchar(only)) sets <- sets[grepl(only, names(sets))]
for (name in names(sets)) safe_sweep("R data", name, sets[[name]])

# (b) the presets at n = 4000
preset_n <- if (quick) 1000L else 4000L
presets <- facility_presets()$name
if (quick) presets <- presets[1:2]
if (nzchar(only)) presets <- presets[grepl(only, presets)]
# small, medium and large differ only in their full n: at one n they are the
# same matrix, which runs once (under the first name).
preset_data <- list()
for (p in presets) {
  X <- facility_data(p, n = preset_n)
  attributes(X) <- list(dim = dim(X))
  same <- Find(function(Y) identical(Y, X), preset_data)
  if (is.null(same)) preset_data[[p]] <- X
  else cat(sprintf("preset %s at n = %d is the same matrix as an earlier preset: skipped\n", p, preset_n))
}
for (p in names(preset_data)) safe_sweep("preset", p, preset_data[[p]])

# (c) own families
own_n <- if (quick) 1000L else 3000L
own_names <- own_family_names()
if (nzchar(only)) own_names <- own_names[grepl(only, own_names)]
for (f in own_names) safe_sweep("own", f, own_family(f, n = own_n))

elapsed <- proc.time()[["elapsed"]] - t0
write_machine(file.path(outdir, "quality-sweep-machine.txt"))

}

# Summary
res <- read.csv(csv, stringsAsFactors = FALSE)
ok <- res[!is.na(res$quality), ]
stat <- function(by) {
  groups <- split(ok, by)
  do.call(rbind, lapply(names(groups), function(g) {
    x <- groups[[g]]
    w <- x[which.min(x$quality), ]
    data.frame(group = g, cells = nrow(x), median = sprintf("%.6f", median(x$quality)),
               min = sprintf("%.6f", w$quality), below_0.999 = sum(x$quality < 0.999),
               zero_gain = sum(x$zero_gain_pick),
               worst = sprintf("%s sigma x%g k %d t%d", w$data, w$sigma_mult, w$k, w$threads))
  }))
}
fmt <- function(df) capture.output(print(df, row.names = FALSE, right = FALSE))
worst <- ok[order(ok$quality), c("family", "data", "n", "d", "sigma_mult", "k", "mode",
                                 "threads", "quality", "zero_gain_pick")][1:min(10, nrow(ok)), ]
worst$quality <- sprintf("%.6f", worst$quality)
mismatch <- ok[abs(ok$objective_r - ok$objective) > 1e-6 * ok$exact, ]
summary_lines <- c(
  sprintf("facloc quality sweep (issue 53), %s; %s", format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"),
          if (quick) "QUICK subset" else "full"),
  sprintf("%d data sets (R data %d, preset %d, own %d); %d cells (%d with an error); run time %.0f s",
          length(unique(res$data)), length(unique(res$data[res$family == "R data"])),
          length(unique(res$data[res$family == "preset"])), length(unique(res$data[res$family == "own"])),
          nrow(res), sum(!is.na(res$error)), elapsed),
  sprintf("R data capped at n = %d (seeded sample of rows); presets n = %d; own n = %d",
          max_n, preset_n, own_n),
  sprintf("quality: min %.6f, median %.6f; cells below 0.999: %d of %d; cells with a zero-gain pick: %d",
          min(ok$quality), median(ok$quality), sum(ok$quality < 0.999), nrow(ok),
          sum(ok$zero_gain_pick)),
  sprintf("cells whose reported objective differs from f(S) recomputed in R by > 1e-6 relative: %d",
          nrow(mismatch)),
  sprintf("cells returning fewer than k picks: %d", sum(ok$picks < ok$k)),
  "", "By mode and threads:", fmt(stat(paste0(ok$mode, " t", ok$threads))),
  "", "By family:", fmt(stat(ok$family)),
  "", "By family and mode:", fmt(stat(paste(ok$family, ok$mode))),
  "", "By sigma multiplier:", fmt(stat(sprintf("x%g", ok$sigma_mult))),
  "", "10 worst cells:", fmt(worst),
  "", "Errors:", if (length(data_errors) || any(!is.na(res$error)))
    c(data_errors, unique(paste(res$data, res$mode, res$error)[!is.na(res$error)])) else "none")
writeLines(summary_lines, file.path(outdir, "quality-sweep-summary.txt"))
cat(summary_lines, sep = "\n")
