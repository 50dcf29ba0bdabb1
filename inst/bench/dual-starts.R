# Where the LP dual could start: B(u) at the coverage u of the first t
# picks, for t = k, k/2, k/4, ... down to 1.  B there is f(S_t) plus the
# k largest exact gains against S_t: the online bound of round t, its
# gains exact.  The certificate of the exact modes starts its steps at t
# = k (the final coverage); under a narrow kernel the picks after t leave
# many gains nearly as large as they were, and B at an earlier round is
# far lower.  Bounds only (no times, so load does not matter): `"dc"` at
# 2 threads with certify = 0, then facility_bound(certify = 0) on each
# prefix of its picks.  The 4 presets of certificate-steps.R at n = 4000
# (sigma 20 and the median heuristic, k = 20 and 100) and unit-length
# embeddings (n = 10,000, d = 128 to 1024, the median heuristic).
# One row per case and t: objective / B(u_t), and objective / bound of
# the default call in "dc" (its 5 LP-dual steps from t = k) for reference.
# Writes dual-starts.csv and dual-starts-machine.txt.
#
#   Rscript inst/bench/dual-starts.R [--small] [outdir]   (about 4 minutes)
here <- "inst/bench"
source(file.path(here, "bench-common.R"))
source(file.path(here, "quality-families.R"))   # embedding_points()
n <- if (small) 1000L else 4000L
cases <- rbind(
  expand.grid(data = c("dense", "medium", "heavy_skew", "uniform"), d = NA, k = c(20L, 100L),
              sigma = c("20", "median"), stringsAsFactors = FALSE),
  data.frame(data = "embeddings", d = c(128L, 384L, 1024L, 384L, 384L),
             k = c(1000L, 1000L, 1000L, 300L, 100L), sigma = "median"))
if (small) cases <- cases[cases$data != "embeddings", ]

points_of <- function(r) {
  if (r$data == "embeddings") embedding_points(10000L, r$d) else facility_data(r$data, n = n)
}

out <- do.call(rbind, lapply(seq_len(nrow(cases)), function(i) {
  r <- cases[i, ]
  X <- points_of(r)
  sigma <- if (r$sigma == "20") 20 else facility_sigma(X)
  fit <- facility_greedy(X, r$k, mode = "dc", threads = 2L, sigma = sigma)
  ts <- unique(pmax(1L, as.integer(round(r$k / 2^(0:12)))))
  do.call(rbind, lapply(ts, function(t) {
    b <- facility_bound(X, fit$selected[seq_len(t)], k = r$k, sigma = sigma, threads = 2L,
                        control = facility_control(certify = 0))
    data.frame(data = r$data, n = nrow(X), d = ncol(X), k = r$k, sigma = r$sigma, t = t,
               ratio_at_t = fit$objective / b$bound_online,
               default_dc_ratio = fit$objective / fit$bound)
  }))
}))
write.csv(out, file.path(outdir, "dual-starts.csv"), row.names = FALSE)
write_machine(file.path(outdir, "dual-starts-machine.txt"))
best <- do.call(rbind, lapply(split(out, interaction(out$data, out$d, out$k, out$sigma, drop = TRUE)),
                              function(g) g[which.max(g$ratio_at_t), ]))
print(best[, c("data", "d", "k", "sigma", "t", "ratio_at_t", "default_dc_ratio")], digits = 4,
      row.names = FALSE)
