# The exact modes' picks under two builds (issue 57: the tiled kernel must
# keep them, up to exact ties): g, c and dc at 1 and 2 threads, k = 40, on
# clustered points with 40 duplicated rows (ties) at d = 2 to 384, at the
# origin and offset by 1000 (|x|^2 much larger than the distances), a 12 x
# 12 grid, sigma 0.3, 1 and 5 times sqrt(d).  Each build runs in its own
# process:
#
#   Rscript inst/bench/exact-picks.R LIB_A LIB_B
#
# Prints how many of the 234 runs pick the same, each that does not (the
# first differing pick, both gains), and the largest relative difference
# of the gains where the picks agree.
args <- commandArgs(TRUE)
if (length(args) == 3L) {   # one build: save its picks
  .libPaths(c(args[1], .libPaths()))
  library(facloc)
  set.seed(57)
  mk <- function(n, d, offset) {
    C <- matrix(rnorm(8 * d, sd = 3), 8)
    X <- C[sample(8, n, TRUE), , drop = FALSE] + matrix(rnorm(n * d), n) + offset
    rbind(X, X[1:40, ])
  }
  cases <- list()
  for (d in c(2, 5, 16, 32, 128, 384)) for (off in c(0, 1000))
    cases[[sprintf("d%d_off%d", d, off)]] <- mk(if (d > 100) 600 else 1200, d, off)
  cases$grid <- as.matrix(expand.grid(1:12, 1:12)) + 0
  out <- list()
  for (nm in names(cases)) {
    X <- cases[[nm]]
    for (sg in c(0.3, 1, 5) * sqrt(ncol(X))) for (mode in c("g", "c", "dc")) for (th in 1:2) {
      fit <- facility_greedy(X, k = 40, mode = mode, sigma = sg, threads = th)
      out[[sprintf("%s_s%.2f_%s_t%d", nm, sg, mode, th)]] <- fit[c("selected", "gains")]
    }
  }
  saveRDS(out, args[3])
  quit(save = "no")
}
files <- tempfile(c("a", "b"), fileext = ".rds")
self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
for (i in 1:2) system2(file.path(R.home("bin"), "Rscript"), c(self, args[i], "save", files[i]))
a <- readRDS(files[1]); b <- readRDS(files[2])
same <- vapply(names(a), function(k) identical(a[[k]]$selected, b[[k]]$selected), TRUE)
cat(sum(same), "of", length(a), "runs pick the same\n")
for (k in names(a)[!same]) {
  t <- which(a[[k]]$selected != b[[k]]$selected)[1]
  cat(sprintf("%s: pick %d, %d (gain %.17g) against %d (%.17g)\n", k, t, a[[k]]$selected[t],
              a[[k]]$gains[t], b[[k]]$selected[t], b[[k]]$gains[t]))
}
rel <- vapply(names(a)[same], function(k) max(abs(a[[k]]$gains - b[[k]]$gains) / a[[k]]$gains), 0)
cat("largest relative gain difference where the picks agree:", max(rel), "\n")
