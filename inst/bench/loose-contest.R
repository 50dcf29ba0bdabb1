# The loose contest (src/mf_contest.c, FL_LOOSE_RIVALS): quality, pairs
# and time of the relaxed modes, two builds side by side.
#
#   FACLOC_OLD=/lib/of/old FACLOC_NEW=/lib/of/new Rscript inst/bench/loose-contest.R [outdir]
#
# Each build runs in its own R process (Rscript -e), one after the other:
#   quality: hc, hpc, nhpc (1 thread, defaults) against dc on the cells
#     of inst/bench/results/quality-sweep.csv.gz that were furthest below
#     greedy (heavy tails, R data at a tenth or a quarter of the median
#     sigma) and on presets at n = 4000, k = 100, sigma = 20 and median;
#   time: nhpc, 1 thread, k = 100, medium and large at sigma = 20 and the
#     median sigma, median of 5 calls, builds alternating twice.
# Writes loose-contest.csv (quality) and loose-contest-time.csv.
args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args)) args[1] else "inst/bench/results"
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
libs <- c(old = Sys.getenv("FACLOC_OLD"), new = Sys.getenv("FACLOC_NEW"))
stopifnot(all(nzchar(libs)))
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
families <- normalizePath(file.path(here, "quality-families.R"))

quality_job <- sprintf('
library(facloc); source("%s")
cell <- function(name, X, mult, k, sigma = mult * facility_sigma(X)) list(name, X, sigma, k)
cells <- list(
  cell("t1_4", own_family("t1_4"), 2, 100), cell("cauchy8", own_family("cauchy8"), 2, 100),
  cell("nlme::Remifentanil", numeric_rows(nlme::Remifentanil), 0.25, 100),
  cell("MASS::crabs", numeric_rows(MASS::crabs), 0.1, 50),
  cell("survival::nafld1", numeric_rows(survival::nafld1), 0.1, 20),
  cell("MASS::biopsy", numeric_rows(MASS::biopsy), 0.1, 50),
  cell("survival::bladder", numeric_rows(survival::bladder), 0.1, 20),
  cell("quakes", as.matrix(quakes[c("long", "lat")]), 1, 50))
for (p in c("medium", "heavy_skew", "uniform")) {
  X <- facility_data(p, n = 4000)
  cells <- c(cells, list(cell(p, X, 1, 100, sigma = 20), cell(p, X, 1, 100)))
}
out <- NULL
for (cl in cells) {
  X <- cl[[2]]; sigma <- cl[[3]]
  ex <- facility_greedy(X, cl[[4]], sigma = sigma, mode = "dc", threads = 1)$objective
  for (mode in c("hc", "hpc", "nhpc")) {
    f <- facility_greedy(X, cl[[4]], sigma = sigma, mode = mode, threads = 1)
    out <- rbind(out, data.frame(data = cl[[1]], n = nrow(X), sigma = sigma, k = cl[[4]],
      mode = mode, quality = f$objective / ex, pairs_n2 = f$pairs / nrow(X)^2,
      evaluations = f$evaluations))
  }
}
write.csv(out, stdout(), row.names = FALSE)', families)

time_job <- '
library(facloc)
out <- NULL
for (p in c("medium", "large")) { X <- facility_data(p)
  for (sigma in c(20, facility_sigma(X))) {
    t <- replicate(5, system.time(f <<- facility_greedy(X, 100, sigma = sigma, mode = "nhpc",
                                                        threads = 1))[["elapsed"]])
    out <- rbind(out, data.frame(data = p, sigma = sigma, seconds = median(t),
                                 pairs_n2 = f$pairs / nrow(X)^2, objective = f$objective))
  }
}
write.csv(out, stdout(), row.names = FALSE)'

run <- function(lib, job) {
  file <- tempfile(fileext = ".R")
  writeLines(c(sprintf(".libPaths(c(\"%s\", .libPaths()))", lib), job), file)
  read.csv(text = system2(file.path(R.home("bin"), "Rscript"), file, stdout = TRUE))
}
quality <- do.call(rbind, lapply(names(libs), function(b) cbind(build = b, run(libs[[b]], quality_job))))
write.csv(quality, file.path(outdir, "loose-contest.csv"), row.names = FALSE)
timing <- NULL
for (rep in 1:2) for (b in names(libs))
  timing <- rbind(timing, cbind(build = b, rep = rep, run(libs[[b]], time_job)))
write.csv(timing, file.path(outdir, "loose-contest-time.csv"), row.names = FALSE)
print(quality); print(timing)
