# Where the matrix-free hierarchy pays (issue 57): the exact "dc" (the
# n x m matrix by the tiled kernel, then lazy greedy on it) against "nhpc"
# (no matrix, cluster bounds), one thread each, on three families of
# points not made by the package, d = 16 to 256, n = 5000, k = 100, the
# median-heuristic sigma and half of it.  Per cell: both times, their
# ratio, nhpc's pairs as a share of n^2 (1 = one exhaustive pass), both
# modes' evaluations, and nhpc's f(S) against exact greedy's.
#
#   Rscript inst/bench/mode-crossover.R [outdir] [n]
#
# Families: "clustered" (50 Gaussian centres, sd 0.5 around them),
# "lowrank" (8 latent dimensions mapped to d, noise sd 0.3), "tails"
# (independent t with 2 degrees of freedom: heavy tails, outliers).
# Timings mean something only on a quiet machine: check `uptime` first.
# About 3 minutes on 2 cores.
args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results")
n <- if (length(args) >= 2) as.integer(args[2]) else 5000L
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
k <- 100L

families <- list(
  clustered = function(n, d) {
    C <- matrix(rnorm(50 * d), 50)
    C[sample(50, n, TRUE), ] + matrix(rnorm(n * d, sd = 0.5), n)
  },
  lowrank = function(n, d) {
    matrix(rnorm(n * 8), n) %*% matrix(rnorm(8 * d), 8) + matrix(rnorm(n * d, sd = 0.3), n)
  },
  tails = function(n, d) matrix(rt(n * d, df = 2), n))

timed <- function(X, mode, sigma) {
  t0 <- proc.time()[["elapsed"]]
  fit <- facility_greedy(X, k, mode = mode, sigma = sigma, threads = 1)
  list(fit = fit, seconds = proc.time()[["elapsed"]] - t0)
}

rows <- list()
for (family in names(families)) for (d in c(16L, 32L, 64L, 128L, 256L)) {
  set.seed(d)
  X <- families[[family]](n, d)
  for (mult in c(1, 0.5)) {
    sigma <- mult * facility_sigma(X)
    dc <- timed(X, "dc", sigma)
    nh <- timed(X, "nhpc", sigma)
    rows[[length(rows) + 1]] <- data.frame(
      family = family, n = n, d = d, k = k, sigma_mult = mult, sigma = sigma,
      dc_seconds = dc$seconds, nhpc_seconds = nh$seconds,
      nhpc_over_dc = nh$seconds / dc$seconds,
      nhpc_pairs_share = nh$fit$pairs / (as.numeric(n) * n),
      dc_evaluations = dc$fit$evaluations, nhpc_evaluations = nh$fit$evaluations,
      nhpc_quality = nh$fit$objective / dc$fit$objective)
  }
  cat(sprintf("%s d %d done\n", family, d))
}
rows <- do.call(rbind, rows)
print(rows, digits = 4)
write.csv(rows, file.path(outdir, "mode-crossover.csv"), row.names = FALSE)
write_machine(file.path(outdir, "mode-crossover-machine.txt"))
cat(sprintf("load after: %s\n", paste(readLines("/proc/loadavg"), collapse = " ")),
    file = file.path(outdir, "mode-crossover-machine.txt"), append = TRUE)
