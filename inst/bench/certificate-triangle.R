# Issue 54: could per-client triangle bounds certify the matrix-free
# modes' final gains without evaluating every candidate?  For candidate j
# and client i in leaf L (centre c, r_i = d(i, c)), d(i, j) >= d(j, c) -
# r_i, so w_ij <= exp(-max(0, d(j, c) - r_i)^2 / (2 sigma^2)): a bound per
# pair with no d-dimensional distance, the tightest a leaf's centre gives.
# With the final coverage m of greedy's set (exact "dc"), the script
# compares each candidate's bound sum_i max(0, bound_ij - m_i) to its exact
# gain, the online bound f(S) + the k largest bounds to the exact one, and
# counts the exact evaluations a lazy refresh (largest bound first, until
# the k largest keys are exact) needs.  Leaves of 0.35 sqrt(n) clients,
# as the matrix-free modes make them.  Plain R on the exact matrix.
#
#   Rscript inst/bench/certificate-triangle.R [out.csv]
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results", "certificate-triangle.csv")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()

one_case <- function(preset, k, sigma_name) {
  X <- facility_data(preset, n = 4000); n <- nrow(X)
  sigma <- if (sigma_name == "median") facility_sigma(X) else 20
  fit <- facility_greedy(X, k, mode = "dc", sigma = sigma, threads = 2,
                         control = facility_control(certify = 0))
  W <- exp(-as.matrix(dist(X))^2 / (2 * sigma^2))
  m <- apply(W[, fit$selected, drop = FALSE], 1, max)
  gain <- colSums(pmax(W - m, 0)); gain[fit$selected] <- 0
  set.seed(1)
  km <- kmeans(X, round(n / (0.35 * sqrt(n))), iter.max = 50)
  C <- km$centers; leaf <- km$cluster; r <- sqrt(rowSums((X - C[leaf, ])^2))
  D <- sqrt(pmax(outer(rowSums(X^2), rowSums(C^2), "+") - 2 * X %*% t(C), 0))
  bound <- vapply(seq_len(n), function(j)
    sum(pmax(exp(-pmax(D[j, leaf] - r, 0)^2 / (2 * sigma^2)) - m, 0)), 0)
  bound[fit$selected] <- 0
  key <- bound; exact <- logical(n); refreshed <- 0
  repeat {
    top <- order(key, decreasing = TRUE)[seq_len(k)]
    if (all(exact[top])) break
    j <- top[!exact[top]][1]; key[j] <- gain[j]; exact[j] <- TRUE; refreshed <- refreshed + 1
  }
  f <- fit$objective; pos <- gain > 0
  data.frame(preset = preset, n = n, k = k, sigma = sigma_name,
             ratio_exact_online = f / (f + sum(sort(gain, TRUE)[seq_len(k)])),
             ratio_triangle_online = f / (f + sum(sort(bound, TRUE)[seq_len(k)])),
             bound_over_gain_median = median(bound[pos] / gain[pos]),
             refresh_evaluations = refreshed, candidates = n - k,
             all_bounds_hold = all(bound >= gain * (1 - 1e-12)))
}

rows <- NULL
for (p in c("dense", "medium", "heavy_skew", "uniform"))
  for (k in c(20, 100)) for (s in c("20", "median")) rows <- rbind(rows, one_case(p, k, s))
print(rows, digits = 3, row.names = FALSE)
write.csv(rows, out, row.names = FALSE)
