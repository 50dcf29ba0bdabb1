# Behaviour fingerprint of every mode: the selection (as an md5 of the
# indices in order), objective, bound, evaluations and pairs, on the 12
# presets drawn at n = 2000 and on `large` (n = 30000, matrix-free modes
# only: the exact ones need its 7.2 GB matrix), at 1 and 2 threads,
# k = 100, sigma = 20 (SIGMA "median": the default median-heuristic
# width, where the relaxed modes' rounds take other paths: readmission,
# contests, two phases).  A change meant to keep behaviour (a refactor, a
# speed-up) must leave this file byte for byte the same:
#
#   Rscript inst/bench/behaviour.R OUT.csv [LIB [SIGMA]]
#   cmp BEFORE.csv AFTER.csv
#
# LIB, if given and not "", is the library facloc is loaded from (to
# compare builds).
# Mode "c" at several threads counts its evaluations in a race on the
# shared heap (a thread may pop a top another is about to refresh), so
# its count is left out there; its picks are still greedy's.
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1L) args[1L] else "behaviour.csv"
lib <- if (length(args) >= 2L && nzchar(args[2L])) args[2L] else NULL
sigma <- if (length(args) >= 3L && args[3L] == "median") NULL else 20
library(facloc, lib.loc = lib)

fingerprint <- function(preset, n, mode, threads) {
  X <- facility_data(preset, n = n)
  r <- facility_greedy(X, k = 100, mode = mode, threads = threads, sigma = sigma)
  sel <- paste(r$selected, collapse = ",")
  tmp <- tempfile()
  on.exit(unlink(tmp))
  writeLines(sel, tmp)
  data.frame(preset = preset, n = n, mode = mode, threads = threads,
             nselected = length(r$selected),
             selection_md5 = unname(tools::md5sum(tmp)),
             objective = sprintf("%.17g", r$objective),
             bound = sprintf("%.17g", r$bound),
             evaluations = if (mode == "c" && threads > 1) "racy"
                           else sprintf("%.17g", r$evaluations),
             pairs = sprintf("%.17g", r$pairs))
}

presets <- facility_presets()$name
modes <- c("g", "c", "dc", "hc", "hpc", "nhpc", "stochastic")
runs <- rbind(
  expand.grid(threads = 1:2, mode = modes, n = 2000L, preset = presets,
              stringsAsFactors = FALSE),
  expand.grid(threads = 1:2, mode = c("hc", "hpc", "nhpc"), n = 30000L,
              preset = "large", stringsAsFactors = FALSE))
rows <- lapply(seq_len(nrow(runs)), function(i)
  with(runs[i, ], fingerprint(preset, n, mode, threads)))
write.csv(do.call(rbind, rows), out, row.names = FALSE)
