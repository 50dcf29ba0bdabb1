# One condition of under-load.sh: every case at 1 and 2 threads, `reps`
# rounds that take the thread counts in turn (machine.R's
# interleaved_runs), one CSV row a run, with the parallel regions the run
# put on one thread because of the load (`shrunk`).  The competing load, if any, is
# started by under-load.sh.
#
#   Rscript inst/bench/under-load.R CONDITION OUT.csv [REPS]
args <- commandArgs(trailingOnly = TRUE)
condition <- args[1]
out <- args[2]
reps <- if (length(args) >= 3) as.integer(args[3]) else 5L
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()

medium <- facility_data("medium")
large <- facility_data("large")
quakes_xyz <- as.matrix(datasets::quakes[, 1:3])
dp <- dp_data(1e5, d = 16, seed = 1)$X
cases <- list(
  demo = function(threads) facility_greedy(medium, 100, sigma = 20, threads = threads),
  quakes_k50 = function(threads) facility_greedy(quakes_xyz, 50, threads = threads),
  medium_default_sigma = function(threads) facility_greedy(medium, 100, threads = threads),
  medium_sigma20 = function(threads) facility_greedy(medium, 100, sigma = 20, mode = "nhpc",
                                                     threads = threads),
  large = function(threads) facility_greedy(large, 100, threads = threads),
  dpmeans_1e5 = function(threads) dpmeans(dp, lambda = 5, threads = threads))

# The answer's fingerprint: the same at a thread count under every load.
answer <- function(fit) {
  picks <- if (!is.null(fit$selected)) fit$selected else fit$cluster
  sprintf("%08x", sum(as.numeric(picks) * seq_along(picks)) %% 2^31)
}

# Parallel regions run on one thread because of the load so far (NA for a
# build that does not adapt its teams).
shrunk <- function() {
  counts <- if (exists("team_policy", asNamespace("facloc"))) facloc:::team_policy()
  if (is.null(counts)) NA_real_ else counts[["shrunk"]]
}

# Rows are written case by case: a condition cut short by its time limit
# keeps the cases it finished.
for (name in names(cases)) {
  runs <- interleaved_runs(1:2, reps, function(threads) {
    before <- shrunk()
    seconds <- system.time(fit <- cases[[name]](threads))[["elapsed"]]
    data.frame(condition = condition, case = name, threads = threads,
               seconds = seconds, answer = answer(fit), shrunk = shrunk() - before)
  })
  rows <- do.call(rbind, unlist(runs, recursive = FALSE))
  write.table(rows, out, sep = ",", row.names = FALSE, append = file.exists(out),
              col.names = !file.exists(out), quote = FALSE)
}
