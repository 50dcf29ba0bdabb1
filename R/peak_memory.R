# Time and peak resident memory of one evaluation, for benchmarks.  On Linux
# the kernel's high-water mark (VmHWM) is reset through /proc/self/clear_refs
# before the run; elsewhere peak memory is NA.

reset_peak_memory <- function() {
  path <- "/proc/self/clear_refs"
  ok <- file.exists(path) &&
    isTRUE(tryCatch({ writeLines("5", path); TRUE }, error = function(e) FALSE,
                    warning = function(w) FALSE))
  ok
}

read_status_kb <- function(field) {
  path <- "/proc/self/status"
  if (!file.exists(path)) return(NA_real_)
  hit <- grep(paste0("^", field, ":"), readLines(path, warn = FALSE), value = TRUE)
  if (length(hit) != 1L) return(NA_real_)
  as.double(sub("^[^:]+:\\s*([0-9]+).*$", "\\1", hit)) * 1024
}

# Evaluate `expr`; return its value with elapsed seconds, the process's peak
# resident bytes during the run and the resident bytes before it.
measure_run <- function(expr) {
  gc(verbose = FALSE)
  can_reset <- reset_peak_memory()
  before <- read_status_kb("VmRSS")
  started <- proc.time()[["elapsed"]]
  value <- force(expr)
  seconds <- proc.time()[["elapsed"]] - started
  peak <- if (can_reset) read_status_kb("VmHWM") else NA_real_
  list(value = value, seconds = seconds, peak_bytes = peak, baseline_bytes = before)
}
