# Quality of the relaxed matrix-free modes on points near a low-dimensional
# subspace, where the leaf balls bound gains tightly enough that a coarse
# evaluation skips real gain and near-ties decide greedy's path.
#
#   Rscript inst/bench/bench-lowdim.R [outdir]
#
# For q = 2, 3, 4, 8, 16 and seeds 1, 2: n = 6000 points of a mixture of 24
# Gaussian clusters in a random q-dimensional subspace of R^32 plus noise
# (sd 0.5 per coordinate; facloc:::near_subspace()), sigma = 20, k = 20,
# 50, 100.  Each of hc, hpc
# and nhpc (default control) at 1 and 2 threads against exact greedy (nhpc
# with batch = 1, eps = 0, tau = 1, which the tests check equals greedy):
# quality = f(S) / greedy's f(S), and pairs.  Writes lowdim.csv and
# lowdim-machine.txt.  About 3 minutes on 2 cores.
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
outdir <- if (length(args)) args[1] else file.path("inst", "bench", "results")
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
source(file.path(here, "machine.R"))
library_facloc()

exact <- facility_control(batch = 1, eps = 0, tau = 1)
rows <- list()
for (q in c(2, 3, 4, 8, 16)) for (seed in 1:2) {
  X <- facloc:::near_subspace(6000, q, seed)
  for (k in c(20L, 50L, 100L)) {
    greedy <- facility_greedy(X, k, mode = "nhpc", sigma = 20, threads = 2, control = exact)
    for (mode in c("hc", "hpc", "nhpc")) for (threads in 1:2) {
      fit <- facility_greedy(X, k, mode = mode, sigma = 20, threads = threads)
      rows[[length(rows) + 1]] <- data.frame(
        q = q, seed = seed, n = nrow(X), k = k, mode = mode, threads = threads,
        quality = fit$objective / greedy$objective, pairs = fit$pairs,
        greedy_pairs = greedy$pairs)
    }
  }
  cat(sprintf("q = %d, seed = %d done\n", q, seed))
}
rows <- do.call(rbind, rows)
write.csv(rows, file.path(outdir, "lowdim.csv"), row.names = FALSE)
write_machine(file.path(outdir, "lowdim-machine.txt"))
cat(sprintf("quality: min %.5f, median %.5f; below 0.999: %d of %d\n",
            min(rows$quality), median(rows$quality), sum(rows$quality < 0.999), nrow(rows)))
