# The runs of the saved quality sweep (results/quality-sweep.csv.gz) below
# 0.999 of greedy, run again on one build: to tell what a change to the
# relaxed modes does to them before rerunning the whole sweep.
#
#   FACLOC_LIB=/lib/of/build Rscript inst/bench/sweep-failures.R [csv]
#
# FACLOC_BATCH sets facility_control(batch =).  Prints each run (data, n,
# sigma multiple, k, mode, threads, the saved quality, this build's
# quality against dc's first k gains, pairs / n^2) and the count still
# below 0.999; writes the table to csv when given.
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
source(file.path(here, "quality-families.R"))
library_facloc()
saved <- read.csv(file.path(here, "results", "quality-sweep.csv.gz"))
runs <- saved[saved$quality < 0.999, ]
batch <- if (nzchar(Sys.getenv("FACLOC_BATCH"))) as.integer(Sys.getenv("FACLOC_BATCH"))
r_data <- r_data_sets(unique(sub("::.*", "", grep("::", runs$data, value = TRUE))),
                      verbose = FALSE)
points_of <- function(family, name) switch(family, own = own_family(name),
  preset = facility_data(name, n = 4000), r_data[[name]])
out <- NULL
for (key in split(runs, list(runs$data, runs$sigma_mult), drop = TRUE)) {
  X <- points_of(key$family[1], key$data[1])
  sigma <- key$sigma_mult[1] * facility_sigma(X)
  greedy <- facility_greedy(X, max(key$k), sigma = sigma, mode = "dc", threads = 1)
  for (t in seq_len(nrow(key))) {
    run <- key[t, ]
    fit <- facility_greedy(X, run$k, sigma = sigma, mode = run$mode, threads = run$threads,
                           control = facility_control(batch = batch))
    out <- rbind(out, data.frame(data = run$data, n = nrow(X), sigma_mult = run$sigma_mult,
      k = run$k, mode = run$mode, threads = run$threads, saved = run$quality,
      quality = fit$objective / sum(greedy$gains[seq_len(run$k)]),
      pairs_n2 = fit$pairs / nrow(X)^2))
  }
}
print(out, row.names = FALSE, digits = 6)
cat("runs:", nrow(out), " below 0.999:", sum(out$quality < 0.999),
    " worst:", format(min(out$quality), digits = 6), "\n")
if (length(args)) write.csv(out, args[1], row.names = FALSE)
