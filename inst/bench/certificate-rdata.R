# The certificate (objective / bound) on data sets shipped with R, at the
# default (median-heuristic) sigma: "dc" and "nhpc", k = 5 and 20 (k < n / 2),
# certify = 5, 1 thread.  Appends to certificate-rdata.csv, one run per
# build (FACLOC_LIB the library facloc is loaded from, FACLOC_BUILD the
# label of its `build` column), to compare a change of the LP dual's steps.
#
#   FACLOC_LIB=lib FACLOC_BUILD=label Rscript inst/bench/certificate-rdata.R [--small] [outdir]
here <- "inst/bench"
source(file.path(here, "bench-common.R"))
sets <- list(quakes = as.matrix(quakes[c("long", "lat")]),
             quakes4 = scale(as.matrix(quakes[1:4])),
             faithful = as.matrix(faithful), trees = as.matrix(trees),
             swiss = as.matrix(swiss), mtcars = as.matrix(mtcars),
             iris = as.matrix(iris[1:4]), USArrests = as.matrix(USArrests),
             airquality = as.matrix(na.omit(airquality)),
             volcano = cbind(c(row(volcano)), c(col(volcano)), c(volcano)))
if (small) sets <- sets[c("faithful", "iris")]
out <- do.call(rbind, lapply(names(sets), function(name) {
  X <- sets[[name]]
  runs <- expand.grid(k = c(5L, 20L), mode = c("dc", "nhpc"), stringsAsFactors = FALSE)
  runs <- runs[runs$k < nrow(X) / 2, ]
  do.call(rbind, lapply(seq_len(nrow(runs)), function(i) {
    fit <- facility_greedy(X, runs$k[i], mode = runs$mode[i], threads = 1L,
                           control = facility_control(certify = 5L))
    data.frame(build = Sys.getenv("FACLOC_BUILD"), data = name, n = nrow(X), d = ncol(X),
               k = runs$k[i], mode = runs$mode[i], objective = fit$objective,
               bound = fit$bound, ratio = fit$objective / fit$bound,
               dual_steps = fit$dual_steps)
  }))
}))
append_rows(out, file.path(outdir, "certificate-rdata.csv"))
print(out, digits = 4)
