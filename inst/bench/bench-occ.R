# Issue 5 benchmark: serial and OCC DP-means, OFL and BP-means at 1 and 2
# threads on dp_data(n, d = 16) (bp_data for BP-means) with n = 1e5 and 1e6
# (lambda = 5, see ?dp_data); seconds (of the whole call, and of the solver
# alone: the call also checks and transposes X), passes, proposals,
# rejections and the objective, and whether each OCC run gave the serial
# answer; plus the rejections of every epoch against P x batch (also with
# fixed batches of 250, 1000 and 4000 points per worker).  Medians of 3
# runs, except OFL and BP-means at 1e6 (one run: minutes each).
#
#   flock /tmp/facloc-bench.lock Rscript inst/bench/bench-occ.R        # full, ~30 min on 2 cores
#   Rscript inst/bench/bench-occ.R --small /tmp/occ-small              # check at small n
#
# Set FACLOC_LIB to load facloc from a private library, FACLOC_BENCH_NOTE to
# say in the results' headers how busy the machine was.  Results go to
# inst/bench/results/occ*.csv (or the directory given).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "bench-common.R"))

sizes <- if (small) c(2000, 20000) else c(1e5, 1e6)
reps <- if (small) 1L else 3L
reps_of <- function(algorithm, n) if (algorithm != "dpmeans" && n > 1e5) 1L else reps
lambda <- 5

# The fields that make up an answer: the same values mean the same answer.
answer <- function(fit) if (is.null(fit$Z)) fit$cluster else fit$Z

run_config <- function(algorithm, X, method, threads, n, rep, serial_fit) {
  f <- switch(algorithm, dpmeans = dpmeans, ofl = ofl, bpmeans = bpmeans)
  extra <- if (algorithm == "ofl") list(seed = 1) else list(max_iter = 100)
  cpu0 <- proc.time()
  run <- facloc:::measure_run(do.call(f, c(list(X, lambda = lambda, threads = threads,
                                                method = method), extra)))
  cpu <- sum((proc.time() - cpu0)[c("user.self", "sys.self")])
  fit <- run$value
  k <- if (algorithm == "bpmeans") nrow(fit$features) else nrow(fit$centers)
  replay <- NA
  if (method == "occ" && rep == 1L)
    replay <- identical(facloc:::occ_replay(fit, X, threads = 1)$objectives, fit$objectives)
  list(fit = fit, row = data.frame(
    algorithm = algorithm, n = n, d = ncol(X), lambda = lambda, method = method,
    threads = threads, workers = fit$workers, batch = fit$batch, rep = rep,
    seconds = run$seconds, solver_seconds = fit$seconds, cpu_seconds = cpu, iterations = fit$iterations, K = k,
    proposals = sum(fit$epochs$proposed), rejections = sum(fit$epochs$rejected),
    epochs = nrow(fit$epochs), max_rejections_epoch = max(fit$epochs$rejected),
    bound_P_batch = fit$workers * fit$batch, objective = fit$objective,
    objective_rel_serial = if (is.null(serial_fit)) 0 else fit$objective / serial_fit$objective - 1,
    same_answer_as_serial = is.null(serial_fit) || identical(answer(fit), answer(serial_fit)),
    replay_identical = replay, peak_mb = run$peak_bytes / 2^20))
}

rows <- list()
epochs <- list()
for (n in sizes) {
  X <- dp_data(n, seed = 1)$X
  for (algorithm in c("dpmeans", "ofl", "bpmeans")) {
    Xa <- if (algorithm == "bpmeans") bp_data(n, seed = 1)$X else X
    for (rep in seq_len(reps_of(algorithm, n))) for (cfg in list(c("serial", 1), c("occ", 1), c("occ", 2))) {
      r <- run_config(algorithm, Xa, cfg[1], as.integer(cfg[2]), n, rep,
                      if (cfg[1] == "occ") serial_fit)
      if (cfg[1] == "serial") serial_fit <- r$fit
      rows[[length(rows) + 1L]] <- r$row
      message(paste(names(r$row), r$row, sep = "=", collapse = " "))
      if (cfg[1] == "occ" && rep == 1L) {   # the epochs that proposed anything
        e <- r$fit$epochs
        epochs[[length(epochs) + 1L]] <- data.frame(
          algorithm = algorithm, n = n, threads = r$fit$threads, batch = r$fit$batch,
          bound_P_batch = r$fit$workers * r$fit$batch, e[e$proposed > 0, ])
      }
    }
  }
}
# Rejections against P x b: one pass of OCC DP-means with P = 2 and fixed
# batches, so that P x b does not grow with n.
rejections <- list()
for (n in sizes) {
  X <- dp_data(n, seed = 1)$X
  for (batch in c(250, 1000, 4000)) {
    fit <- dpmeans(X, lambda = lambda, threads = 2, batch = batch, max_iter = 1)
    rejections[[length(rejections) + 1L]] <- data.frame(
      n = n, P = fit$workers, batch = fit$batch, bound_P_batch = fit$workers * fit$batch,
      fit$epochs[, c("epoch", "proposed", "accepted", "rejected")])
    message(sprintf("rejections n=%g b=%d: %d in %d epochs (P x b = %d)", n, batch,
                    sum(fit$epochs$rejected), nrow(fit$epochs), fit$workers * fit$batch))
  }
}

rows <- do.call(rbind, rows)
# speedup of each configuration against the median serial time
med <- aggregate(cbind(seconds, solver_seconds, cpu_seconds) ~ algorithm + n + method + threads,
                 rows, stats::median)
base <- med[med$method == "serial", c("algorithm", "n", "seconds", "solver_seconds")]
names(base)[3:4] <- c("serial_seconds", "serial_solver_seconds")
med <- merge(med, base)
med$speedup <- med$serial_seconds / med$seconds
med$solver_speedup <- med$serial_solver_seconds / med$solver_seconds
# does every run of a configuration give the serial answer, and how far
# (relatively) is its objective from the serial one at most
same <- aggregate(same_answer_as_serial ~ algorithm + n + method + threads, rows, all)
rel <- aggregate(cbind(max_abs_objective_rel_serial = abs(objective_rel_serial)) ~
                   algorithm + n + method + threads, rows, max)
med <- merge(merge(med, same), rel)

meta <- c(describe_machine(),
          note = paste(Sys.getenv("FACLOC_BENCH_NOTE", "FACLOC_BENCH_NOTE not set"),
                       "; medians of", reps, "runs in occ-summary.csv (one run for OFL and",
                       "BP-means at 1e6);",
                       "cpu_seconds is the process's CPU time (all threads, OMP_WAIT_POLICY=",
                       Sys.getenv("OMP_WAIT_POLICY", "default"), "): equal CPU at 1 and 2",
                       "threads means no parallel overhead, whatever the wall time"))
header <- paste0("# ", names(meta), ": ", meta)
write_csv <- function(x, name) {
  path <- file.path(outdir, name)
  writeLines(header, path)
  suppressWarnings(utils::write.table(x, path, sep = ",", row.names = FALSE, append = TRUE))
  message("wrote ", path)
}
write_csv(rows, "occ.csv")
write_csv(med, "occ-summary.csv")
write_csv(do.call(rbind, epochs), "occ-epochs.csv")
write_csv(do.call(rbind, rejections), "occ-rejections.csv")
print(med)
