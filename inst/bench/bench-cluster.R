# Issue 6 benchmark: 1 and 2 local PSOCK workers against threads, for
# DP-means on dp_data(1e6, d = 16) (lambda = 5, OCC, one thread per worker)
# and for facility_greedy(k = 100) on 30,000 points of the "large" preset
# (GreeDi with mode "nhpc" on each part against single-machine "nhpc"):
# seconds, bytes moved and objective.
#
#   flock /tmp/facloc-bench.lock Rscript inst/bench/bench-cluster.R     # full, ~10 min on 2 cores
#   Rscript inst/bench/bench-cluster.R --small /tmp/cluster-small       # check at small n
#
# Set FACLOC_LIB to load facloc from a private library (the workers get it
# too).  Results go to inst/bench/results/cluster.csv (or the directory given).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "bench-common.R"))

n_dp <- if (small) 20000 else 1e6
n_fl <- if (small) 3000 else 30000
k <- if (small) 30 else 100
rows <- list()
add <- function(...) {
  row <- data.frame(...)
  rows[[length(rows) + 1L]] <<- row
  message(paste(names(row), row, sep = "=", collapse = " "))
}

# DP-means: threads (P = threads) against P workers of one thread each.
X <- dp_data(n_dp, seed = 1)$X
reference <- list()
for (P in 1:2) {
  t <- system.time(fit <- dpmeans(X, lambda = 5, threads = P))[["elapsed"]]
  reference[[P]] <- fit
  add(task = "dpmeans", n = n_dp, how = "threads", P = P, seconds = t,
      setup_bytes = 0, epoch_bytes = 0, epochs = nrow(fit$epochs),
      iterations = fit$iterations, objective = fit$objective,
      relative = 1, identical_to_threads = NA)
}
for (P in 1:2) {
  cl <- parallel::makePSOCKcluster(P)
  t <- system.time(fit <- dpmeans(X, lambda = 5, threads = 1, cl = cl))[["elapsed"]]
  parallel::stopCluster(cl)
  add(task = "dpmeans", n = n_dp, how = "workers", P = P, seconds = t,
      setup_bytes = fit$setup_bytes,
      epoch_bytes = sum(fit$epochs$bytes_sent + fit$epochs$bytes_received),
      epochs = nrow(fit$epochs), iterations = fit$iterations,
      objective = fit$objective, relative = fit$objective / reference[[P]]$objective,
      identical_to_threads = identical(fit$cluster, reference[[P]]$cluster) &&
        identical(fit$objectives, reference[[P]]$objectives))
}

# facility_greedy: single-machine nhpc against GreeDi over P workers.
Y <- facility_data("large", n = n_fl)
single <- NULL
for (P in 1:2) {
  t <- system.time(fit <- facility_greedy(Y, k, mode = "nhpc", threads = P, sigma = 20))[["elapsed"]]
  if (P == 1) single <- fit
  add(task = "facility_greedy", n = n_fl, how = "threads", P = P, seconds = t,
      setup_bytes = 0, epoch_bytes = 0, epochs = NA, iterations = NA,
      objective = fit$objective, relative = fit$objective / single$objective,
      identical_to_threads = NA)
}
for (P in 1:2) {
  cl <- parallel::makePSOCKcluster(P)
  t <- system.time(fit <- facility_greedy(Y, k, mode = "nhpc", threads = 1, sigma = 20, cl = cl))[["elapsed"]]
  parallel::stopCluster(cl)
  add(task = "facility_greedy", n = n_fl, how = "workers", P = P, seconds = t,
      setup_bytes = fit$greedi$bytes_sent, epoch_bytes = fit$greedi$bytes_received,
      epochs = NA, iterations = NA, objective = fit$objective,
      relative = fit$objective / single$objective, identical_to_threads = NA)
}

out <- do.call(rbind, rows)
meta <- c(describe_machine(),
          note = paste("local PSOCK workers on a shared 2-core machine while other developers",
                       "compiled and tested: timings are noisy; seconds exclude starting the",
                       "workers; relative = objective / single-machine (threads) objective"))
path <- file.path(outdir, "cluster.csv")
writeLines(paste0("# ", names(meta), ": ", meta), path)
suppressWarnings(utils::write.table(out, path, sep = ",", row.names = FALSE, append = TRUE))
message("wrote ", path)
print(out)
