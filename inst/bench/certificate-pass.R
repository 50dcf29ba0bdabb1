# What a certificate of the default call at sigma = 20 may cost (issue 54)
# against what one exhaustive pass costs.  The default call on the presets
# at n = 4000 and on `large` is "nhpc"; the target allows its bound at most
# half the solve's time (1.5 times the call).  Any LP-dual bound tighter
# than the cap needs c_j(u), or an upper bound below the top k, for every
# candidate: at sigma 20 the cluster bounds do not prune those sums
# (results/certificate-costs.md), so about one pass over all pairs.
# Columns: the default call's time without a bound (fastest of 3), one
# pass (facility_pass_time(), fastest of 3), their ratio, and the default
# call's objective / bound (the cap where nothing tighter was computed).
#
#   Rscript inst/bench/certificate-pass.R [outdir]
#
# Timings mean something only on a quiet machine: check `uptime` first.
# About 1 minute on 2 cores.
args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)

fastest <- function(f) min(replicate(3, system.time(f())[["elapsed"]]))
presets <- c(setdiff(facility_presets()$name, "large"), "large")
rows <- list()
for (p in presets) {
  X <- facility_data(p, n = if (p == "large") 30000 else 4000)
  pass <- fastest(function() facility_pass_time(X, sigma = 20, threads = 2))
  for (k in c(20, 100)) {
    fit <- facility_greedy(X, k, sigma = 20, threads = 2)
    solve <- fastest(function() facility_greedy(X, k, sigma = 20, threads = 2))
    rows[[length(rows) + 1]] <- data.frame(
      preset = p, n = nrow(X), k = k, mode = fit$mode, solve_seconds = solve,
      pass_seconds = pass, pass_over_solve = pass / solve,
      objective_over_bound = fit$objective / fit$bound)
  }
}
rows <- do.call(rbind, rows)
print(rows, digits = 3)
write.csv(rows, file.path(outdir, "certificate-pass.csv"), row.names = FALSE)
write_machine(file.path(outdir, "certificate-pass-machine.txt"))
