# Issue 8 benchmark: stochastic greedy and sparse kNN similarities.
#
#   Rscript inst/bench/bench-features.R [part ...]
#
# Parts (all by default), each writing inst/bench/results/features-<part>.csv:
#   stochastic  mode "stochastic" (epsilon 0.01, seeds 1..20; epsilon 0.001,
#               seeds 1..5) against "nhpc" (default control) on the large
#               preset (n = 30000, d = 32, k = 100, sigma = 20), at 1 and 2
#               threads, with quality = f(S) / exact greedy's f(S).
#   quality     the mean over seeds 1..20 of stochastic greedy's f(S) /
#               greedy's f(S) at epsilon 0.01 on all twelve presets
#               (n = 4000 each, k = 100); beside it the same for a plain-R
#               stochastic greedy (reference_stochastic() below, R's own
#               sampling), which tells the algorithm's quality apart from
#               the C code's.
#   sparse      knn_similarity(k = 20) on n = 200000 points of the large
#               mixture, then facility_greedy(mode = "dc", k = 100) on it:
#               time and peak memory of each step against the size of the
#               sparse matrix (a dense one would take 8 n^2 = 298 GiB).
# Every timed run is a fresh R process, so its peak resident memory is its
# own.  Environment variables shrink the runs to check the script quickly:
# FACLOC_BENCH_LARGE_N, FACLOC_BENCH_QUALITY_N, FACLOC_BENCH_SPARSE_N,
# FACLOC_BENCH_SEEDS.  At full size on 2 cores shared with other work
# (load about 6): stochastic about 20 minutes, quality about 10, sparse
# about 2; less on quiet cores.
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()
options(facloc.memory_limit = 16 * 2^30)

env_int <- function(name, default) {
  value <- Sys.getenv(name)
  if (nzchar(value)) as.integer(value) else default
}
large_n <- env_int("FACLOC_BENCH_LARGE_N", 30000L)
quality_n <- env_int("FACLOC_BENCH_QUALITY_N", 4000L)
sparse_n <- env_int("FACLOC_BENCH_SPARSE_N", 200000L)
seeds <- env_int("FACLOC_BENCH_SEEDS", 20L)
k <- 100L
results <- file.path(here, "results")

append_row <- function(row, out) {
  write.table(row, out, sep = ",", append = file.exists(out), row.names = FALSE,
              col.names = !file.exists(out))
}

# ---- runs done inside a child process ----

stochastic_run <- function(mode, threads, seed, epsilon) {
  X <- facility_data("large", n = large_n)
  control <- facility_control(seed = seed, epsilon = epsilon)
  run <- facloc:::measure_run(facility_greedy(X, k, mode = mode, threads = threads,
                                              sigma = 20, control = control))
  fit <- run$value
  data.frame(preset = "large", n = nrow(X), k = k, mode = mode, threads = fit$threads,
             seed = seed, epsilon = if (mode == "stochastic") epsilon else NA,
             seconds = run$seconds, evaluations = fit$evaluations, pairs = fit$pairs,
             objective = fit$objective, peak_mb = run$peak_bytes / 2^20,
             baseline_mb = run$baseline_bytes / 2^20)
}

sparse_run <- function(threads) {
  X <- facility_data("large", n = sparse_n)
  loadNamespace("Matrix")   # loaded before measuring: its size is not ours
  build <- facloc:::measure_run(knn_similarity(X, k = 20, sigma = 20, threads = threads))
  S <- build$value
  matrix_mb <- as.double(utils::object.size(S)) / 2^20
  solve <- facloc:::measure_run(facility_greedy(similarity = S, k = k, mode = "dc",
                                                threads = threads))
  fit <- solve$value
  data.frame(n = nrow(X), d = ncol(X), neighbours = 20L, k = k, threads = fit$threads,
             step = c("knn_similarity", "facility_greedy dc"),
             seconds = c(build$seconds, solve$seconds),
             peak_mb = c(build$peak_bytes, solve$peak_bytes) / 2^20,
             baseline_mb = c(build$baseline_bytes, solve$baseline_bytes) / 2^20,
             matrix_mb = matrix_mb, points_mb = as.double(utils::object.size(X)) / 2^20,
             dense_matrix_mb = 8 * as.double(nrow(X))^2 / 2^20,
             objective = c(NA, fit$objective), bound = c(NA, fit$bound))
}

if (identical(Sys.getenv("FACLOC_BENCH_CHILD"), "1")) {
  spec <- strsplit(args[2], ",")[[1]]
  row <- switch(spec[1],
    stochastic = stochastic_run(spec[2], as.integer(spec[3]), as.integer(spec[4]),
                                as.double(spec[5])),
    sparse = sparse_run(as.integer(spec[2])))
  append_row(row, args[1])
  quit(save = "no")
}

child <- function(out, spec) {
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    c(file.path(here, "bench-features.R"), out, paste(spec, collapse = ",")),
                    env = "FACLOC_BENCH_CHILD=1")
  if (status != 0) stop("benchmark run failed: ", paste(spec, collapse = " "))
  cat(paste(spec, collapse = " "), "done\n")
}

# ---- the parts ----

part_stochastic <- function() {
  out <- file.path(results, "features-stochastic.csv")
  if (file.exists(out)) file.remove(out)
  for (threads in 1:2) child(out, c("stochastic", "nhpc", threads, 1, 0))
  for (threads in 1:2) child(out, c("stochastic", "stochastic", threads, 1, 0.01))
  for (seed in seq_len(seeds)[-1]) child(out, c("stochastic", "stochastic", 2, seed, 0.01))
  for (seed in seq_len(min(5L, seeds))) child(out, c("stochastic", "stochastic", 2, seed, 0.001))
  rows <- read.csv(out)
  X <- facility_data("large", n = large_n)
  ref <- facloc:::exact_reference(X, k, sigma = 20, threads = 2)
  rows$quality <- rows$objective / ref$objective
  rows$reference <- ref$method
  write.csv(rows, out, row.names = FALSE)
  print(aggregate(cbind(seconds, quality) ~ mode + epsilon + threads,
                  data = transform(rows, epsilon = ifelse(is.na(epsilon), 0, epsilon)),
                  FUN = mean))
}

# Stochastic greedy (Mirzasoleiman et al., 2015) in plain R on the dense
# similarity matrix: each of the k steps takes the best of
# ceiling((n / k) log(1 / epsilon)) open candidates drawn without
# replacement.  Returns f(S).
reference_stochastic <- function(W, k, epsilon, seed) {
  n <- nrow(W)
  s <- ceiling((n / k) * log(1 / epsilon))
  set.seed(seed)
  cover <- numeric(n)
  open <- seq_len(n)
  for (step in seq_len(k)) {
    cand <- if (length(open) <= s) open else open[sample.int(length(open), s)]
    j <- cand[which.max(colSums(pmax(W[, cand, drop = FALSE] - cover, 0)))]
    cover <- pmax(cover, W[, j])
    open <- open[open != j]
  }
  sum(cover)
}

part_quality <- function() {
  out <- file.path(results, "features-quality.csv")
  rows <- do.call(rbind, lapply(facility_presets()$name, function(preset) {
    X <- facility_data(preset, n = quality_n)
    greedy <- facloc:::exact_reference(X, k, sigma = 20, threads = 2)
    f <- vapply(seq_len(seeds), function(seed)
      facility_greedy(X, k, mode = "stochastic", threads = 2, sigma = 20,
                      control = facility_control(seed = seed, epsilon = 0.01))$objective, 0)
    W <- exp(-as.matrix(stats::dist(X))^2 / (2 * 20^2))
    fr <- vapply(seq_len(seeds), function(seed) reference_stochastic(W, k, 0.01, seed), 0)
    cat(preset, "done\n")
    data.frame(preset = preset, n = nrow(X), k = k, epsilon = 0.01, seeds = seeds,
               greedy = greedy$objective, mean_objective = mean(f),
               mean_quality = mean(f) / greedy$objective,
               min_quality = min(f) / greedy$objective,
               reference_mean_quality = mean(fr) / greedy$objective,
               reference_min_quality = min(fr) / greedy$objective)
  }))
  write.csv(rows, out, row.names = FALSE)
  print(rows)
}

part_sparse <- function() {
  out <- file.path(results, "features-sparse.csv")
  if (file.exists(out)) file.remove(out)
  for (threads in 1:2) child(out, c("sparse", threads))
  print(read.csv(out))
}

parts <- if (length(args)) args else c("stochastic", "quality", "sparse")
dir.create(results, showWarnings = FALSE)
for (part in parts) get(paste0("part_", part))()
write_machine(file.path(results, "features-machine.txt"))
