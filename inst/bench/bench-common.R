# Setup shared by the benchmark scripts that take `[--small] [outdir]`:
# source it with `here` set to their directory.  Sets `small` and `outdir`
# (created), loads facloc (from FACLOC_LIB when set), sources machine.R and
# raises the memory limit for the full sizes.
args <- commandArgs(trailingOnly = TRUE)
small <- "--small" %in% args
args <- setdiff(args, "--small")
outdir <- if (length(args)) args[1] else file.path("inst", "bench", "results")
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
source(file.path(here, "machine.R"))
library_facloc()
options(facloc.memory_limit = 16 * 2^30)
