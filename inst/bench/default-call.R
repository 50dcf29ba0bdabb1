# The default call on embedding-like points in a fresh process (issue 57):
# facility_greedy(X, k, threads = 2), the median heuristic included, after
# one untimed call on 3000 of the points; prints every call's time.  On a
# virtual machine whose host takes back memory freed a few seconds
# earlier, a call that follows a pause or other work pays for the first
# touches of its matrix again (up to a second for 800 MB): the fastest of
# the calls is the solver's time, the slowest that of a cold start.
#
#   Rscript inst/bench/default-call.R [d] [k] [calls]
args <- commandArgs(trailingOnly = TRUE)
d <- if (length(args) >= 1) as.integer(args[1]) else 1024L
k <- if (length(args) >= 2) as.integer(args[2]) else 1000L
calls <- if (length(args) >= 3) as.integer(args[3]) else 3L
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
source(file.path(here, "quality-families.R"))   # embedding_points()
library_facloc()
X <- embedding_points(10000L, d)
invisible(facility_greedy(X[1:3000, ], 10, threads = 2))
seconds <- numeric(calls)
for (r in seq_len(calls))
  seconds[r] <- system.time(fit <- facility_greedy(X, k, threads = 2))[["elapsed"]]
cat(sprintf("n 10000 d %d k %d mode %s: %s s (fastest %.3f); bound %.4f of f(S) in %.3f s; load %s\n",
            d, k, fit$mode, paste(sprintf("%.3f", seconds), collapse = " "), min(seconds),
            fit$objective / fit$bound, fit$bound_seconds,
            paste(readLines("/proc/loadavg"), collapse = " ")))
