# Issue 2 benchmark: the exact modes g, c, dc at 1 and 2 threads on the
# "small" (n = 4000) and "medium" (n = 12000) presets, d = 32, k = 100.
# Each run is a fresh R process so its peak resident memory is its own.
#   Rscript inst/bench/bench-exact.R [output.csv]      (about 3 minutes here)
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else file.path("inst", "bench", "results", "exact.csv")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()
options(facloc.memory_limit = 16 * 2^30)

one_run <- function(preset, mode, threads, k = 100) {
  X <- facility_data(preset)
  run <- facloc:::measure_run(facility_greedy(X, k, mode = mode, threads = threads, sigma = 20))
  fit <- run$value
  data.frame(preset = preset, n = nrow(X), d = ncol(X), k = k, mode = mode,
             threads = fit$threads, seconds = run$seconds,
             evaluations = fit$evaluations, objective = fit$objective,
             bound = fit$bound, peak_mb = run$peak_bytes / 2^20,
             baseline_mb = run$baseline_bytes / 2^20)
}

if (identical(Sys.getenv("FACLOC_BENCH_CHILD"), "1")) {
  spec <- strsplit(args[2], ",")[[1]]
  row <- one_run(spec[1], spec[2], as.integer(spec[3]))
  fresh <- !file.exists(out)
  write.table(row, out, sep = ",", append = !fresh, row.names = FALSE, col.names = fresh)
  quit(save = "no")
}

if (file.exists(out)) file.remove(out)
for (preset in c("small", "medium")) for (mode in c("g", "c", "dc")) for (threads in 1:2) {
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    c(file.path(here, "bench-exact.R"), out, paste(preset, mode, threads, sep = ",")),
                    env = "FACLOC_BENCH_CHILD=1")
  if (status != 0) stop("benchmark run failed: ", preset, " ", mode, " ", threads)
  cat(sprintf("%s %s %d done\n", preset, mode, threads))
}
write_machine(sub("\\.csv$", "-machine.txt", out))
print(read.csv(out))
