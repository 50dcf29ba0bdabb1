# Working-memory guard: every solve states what it will allocate and is
# refused before allocating when that exceeds the limit.

#' Memory limit for facloc solvers
#'
#' Every solver estimates its working memory before allocating anything and
#' fails with an error of class `facloc_error_memory` when the estimate
#' exceeds this limit; mode `"dc"` on points then computes its gains from
#' the points instead of holding the matrix (see [facility_greedy()]). The limit is the option `facloc.memory_limit` (in
#' bytes) when set; otherwise 80% of the memory the operating system reports
#' available (`MemAvailable` in `/proc/meminfo`), or 16 GiB where that is
#' not known.
#'
#' @return The limit in bytes.
#' @export
#' @examples
#' facloc_memory_limit() / 2^30   # GiB
#' old <- options(facloc.memory_limit = 2^30)
#' facloc_memory_limit()
#' options(old)
facloc_memory_limit <- function() {
  limit <- getOption("facloc.memory_limit")
  if (!is.null(limit)) {
    if (!is.numeric(limit) || length(limit) != 1L || is.na(limit) || limit <= 0)
      abort_argument("options(facloc.memory_limit)", "must be a single positive number of bytes")
    return(as.double(limit))
  }
  available <- available_memory()
  if (is.na(available)) 16 * 2^30 else 0.8 * available
}

available_memory <- function() {
  if (!file.exists("/proc/meminfo")) return(NA_real_)
  lines <- tryCatch(readLines("/proc/meminfo", warn = FALSE), error = function(e) character())
  hit <- grep("^MemAvailable:", lines, value = TRUE)
  if (length(hit) != 1L) return(NA_real_)
  as.double(sub("^MemAvailable:\\s*([0-9]+).*$", "\\1", hit)) * 1024
}

format_bytes <- function(bytes) {
  units <- c("B", "KiB", "MiB", "GiB", "TiB")
  power <- max(0, min(length(units) - 1, floor(log(max(bytes, 1), 1024))))
  sprintf("%.1f %s", bytes / 1024^power, units[power + 1])
}

# Refuse a request above the limit; `suggestion` says what needs less.
check_memory <- function(bytes, what, suggestion) {
  limit <- facloc_memory_limit()
  if (bytes > limit)
    facloc_abort(sprintf("%s needs about %s of working memory, above the limit of %s (options(facloc.memory_limit)); %s",
                         what, format_bytes(bytes), format_bytes(limit), suggestion),
                 "facloc_error_memory", bytes = bytes, limit = limit)
  invisible(bytes)
}
