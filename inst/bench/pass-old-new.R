# facility_pass_time() and mode "dc" (k = 100), one thread, on clustered
# points (20 centres, n = 3000, median-heuristic sigma), for comparing two
# builds installed in two libraries, in alternating processes:
#
#   for r in 1 2; do for v in old new; do
#     Rscript inst/bench/pass-old-new.R /tmp/lib-$v $v; done; done
#
# Prints build,n,d,pass_seconds,dc_seconds,objective,first five picks.
args <- commandArgs(TRUE); lib <- args[1]; tag <- args[2]
.libPaths(c(lib, .libPaths())); suppressMessages(library(facloc))
set.seed(1)
for (d in c(32, 128, 384, 1024)) {
  n <- 3000
  C <- matrix(rnorm(20 * d), 20)
  X <- C[sample(20, n, TRUE), ] + matrix(rnorm(n * d, sd = 0.5), n)
  s <- facility_sigma(X)
  pass <- facility_pass_time(X, sigma = s, threads = 1)
  t0 <- proc.time()[["elapsed"]]
  fit <- facility_greedy(X, k = 100, mode = "dc", sigma = s, threads = 1)
  dc <- proc.time()[["elapsed"]] - t0
  cat(sprintf("%s,%d,%d,%.4f,%.4f,%.10g,%s\n", tag, n, d, pass, dc, fit$objective,
              paste(head(fit$selected, 5), collapse = " ")))
}
