# Certificates (objective / bound) of facility_greedy() on the 12 presets
# drawn at n = 4000 and on `large` (n = 30000), k = 20 and 100, at
# sigma = 20 (the specification's) and at the default median-heuristic
# sigma, 2 threads: the default mode ("nhpc") at the default effort, and
# what more effort buys: "nhpc" with certify = 20 (n = 4000 only: each
# step evaluates about every candidate again) and "dc" on the matrix it
# builds at its default (5 steps).  One row per run: the solve's seconds,
# the bound's share of them (bound_seconds) and the bound's evaluations.
# The default call's time without the bound is seconds - bound_seconds.
# Writes certificate.csv and certificate-machine.txt.
#
#   Rscript inst/bench/certificate.R [--small] [outdir]
#
# FACLOC_LIB, if set, is the library facloc is loaded from.
here <- "inst/bench"
source(file.path(here, "bench-common.R"))
threads <- 2L
n_small <- if (small) 1000L else 4000L
n_large <- if (small) 3000L else 30000L

rows <- rbind(data.frame(preset = facility_presets()$name, n = n_small),
              data.frame(preset = "large", n = n_large))
rows <- merge(rows, data.frame(k = c(20L, 100L)))
rows <- merge(rows, data.frame(sigma = c("20", "median")))
rows <- rows[order(rows$n, rows$preset, rows$sigma, rows$k), ]

run <- function(X, k, sigma, mode, certify) {
  ctrl <- if (is.null(certify)) facility_control() else facility_control(certify = certify)
  t <- system.time(fit <- facility_greedy(X, k, mode = mode, sigma = sigma, threads = threads,
                                          control = ctrl))[["elapsed"]]
  data.frame(mode = mode, certify = if (is.null(certify)) "default" else certify,
             objective = fit$objective, bound = fit$bound, ratio = fit$objective / fit$bound,
             online_ratio = fit$objective / fit$bound_online, bound_is_cap = fit$bound >= fit$bound_cap,
             seconds = t, bound_seconds = fit$bound_seconds,
             evaluations = fit$evaluations, bound_evaluations = fit$bound_evaluations,
             dual_steps = fit$dual_steps)
}

out <- do.call(rbind, lapply(seq_len(nrow(rows)), function(i) {
  X <- facility_data(rows$preset[i], n = rows$n[i])
  sigma <- if (rows$sigma[i] == "20") 20 else NULL
  k <- rows$k[i]
  runs <- list(run(X, k, sigma, "nhpc", NULL))
  if (rows$n[i] <= 5000L)
    runs <- c(runs, list(run(X, k, sigma, "nhpc", 20L), run(X, k, sigma, "dc", NULL)))
  cbind(rows[i, ], do.call(rbind, runs), row.names = NULL)
}))
write.csv(out, file.path(outdir, "certificate.csv"), row.names = FALSE)
write_machine(file.path(outdir, "certificate-machine.txt"))
print(out, digits = 4)
