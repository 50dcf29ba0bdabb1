# Certificates (objective / bound) of facility_greedy() at its defaults, on
# the 12 presets drawn at n = 4000 and on `large` (n = 30000), k = 20 and
# 100, sigma = 20, 2 threads: the default mode ("nhpc") at the default
# effort, its time beside the same call in a build without the
# certificates (BASELIB, when given: fastest of `reps` alternations), and
# what more effort buys: "nhpc" with certify = 20 (n = 4000 only: each
# step computes about every similarity again) and "dc" on the matrix it
# builds, at its default (5 steps) and with 20.  Writes certificate.csv.
#
#   [BASELIB=LIB] [BIG=1] Rscript inst/bench/certificate.R [--small] [outdir]
#
# BIG=1 adds the n = 1e6 row of `large` (default mode and effort).
# FACLOC_LIB, if set, is the library facloc is loaded from.
here <- "inst/bench"
base <- if (nzchar(Sys.getenv("BASELIB"))) Sys.getenv("BASELIB")
big <- nzchar(Sys.getenv("BIG"))
source(file.path(here, "bench-common.R"))
reps <- 3L
threads <- 2L
n_small <- if (small) 1000L else 4000L
n_large <- if (small) 3000L else 30000L

rows <- rbind(data.frame(preset = facility_presets()$name, n = n_small),
              data.frame(preset = "large", n = n_large))
rows <- merge(rows, data.frame(k = c(20L, 100L)))
rows <- rows[order(rows$n, rows$preset, rows$k), ]

# Seconds of the default call in the base build, fastest of one child run
# per alternation: one process loads one build of the package.
base_times <- function(rows) {
  code <- sprintf('library(facloc, lib.loc = "%s"); rows <- read.csv("%s")
    s <- vapply(seq_len(nrow(rows)), function(i) { X <- facility_data(rows$preset[i], n = rows$n[i])
      system.time(facility_greedy(X, rows$k[i], threads = %d))[["elapsed"]] }, 0)
    writeLines(format(s, digits = 17), "%s")', base, tmp_rows, threads, tmp_out)
  system2("Rscript", c("-e", shQuote(code)))
  as.numeric(readLines(tmp_out))
}
tmp_rows <- tempfile(fileext = ".csv")
tmp_out <- tempfile()
write.csv(rows[, c("preset", "n", "k")], tmp_rows, row.names = FALSE)

timed <- function(X, k, ...) {
  t <- system.time(fit <- facility_greedy(X, k, threads = threads, ...))[["elapsed"]]
  list(fit = fit, seconds = t)
}

new_s <- matrix(NA_real_, nrow(rows), reps)
base_s <- matrix(NA_real_, nrow(rows), reps)
fits <- vector("list", nrow(rows))
for (r in seq_len(reps)) {
  if (!is.null(base)) base_s[, r] <- base_times(rows)
  for (i in seq_len(nrow(rows))) {
    X <- facility_data(rows$preset[i], n = rows$n[i])
    run <- timed(X, rows$k[i])
    new_s[i, r] <- run$seconds
    fits[[i]] <- run$fit
  }
}

extra <- function(X, k, n, mode, certify) {
  if (mode == "nhpc" && n > 5000L) return(c(NA, NA))
  if (mode == "dc" && n > 12000L) return(c(NA, NA))   # its n x n matrix
  fit <- timed(X, k, mode = mode, control = facility_control(certify = certify))$fit
  c(fit$objective / fit$bound, fit$bound_seconds)
}

out <- do.call(rbind, lapply(seq_len(nrow(rows)), function(i) {
  f <- fits[[i]]
  X <- facility_data(rows$preset[i], n = rows$n[i])
  nh20 <- extra(X, rows$k[i], rows$n[i], "nhpc", 20)
  dc5 <- extra(X, rows$k[i], rows$n[i], "dc", 5)
  dc20 <- extra(X, rows$k[i], rows$n[i], "dc", 20)
  data.frame(preset = rows$preset[i], n = rows$n[i], k = rows$k[i], mode = f$mode,
             objective = f$objective, bound = f$bound, ratio = f$objective / f$bound,
             bound_online = f$bound_online, seconds = min(new_s[i, ]),
             bound_seconds = f$bound_seconds,
             base_seconds = if (is.null(base)) NA else min(base_s[i, ]),
             nhpc20_ratio = nh20[1], nhpc20_bound_seconds = nh20[2],
             dc5_ratio = dc5[1], dc5_bound_seconds = dc5[2],
             dc20_ratio = dc20[1], dc20_bound_seconds = dc20[2])
}))
out$time_ratio <- out$seconds / out$base_seconds

if (big) {
  X <- facility_data("large", n = 1e6)
  run <- timed(X, 100L)
  f <- run$fit
  out <- rbind(out, data.frame(preset = "large", n = 1e6, k = 100L, mode = f$mode,
                               objective = f$objective, bound = f$bound,
                               ratio = f$objective / f$bound, bound_online = f$bound_online,
                               seconds = run$seconds, bound_seconds = f$bound_seconds,
                               base_seconds = NA, nhpc20_ratio = NA, nhpc20_bound_seconds = NA,
                               dc5_ratio = NA, dc5_bound_seconds = NA, dc20_ratio = NA,
                               dc20_bound_seconds = NA, time_ratio = NA))
}
write.csv(out, file.path(outdir, "certificate.csv"), row.names = FALSE)
print(out, digits = 4)
