# One place decides how many threads the C code uses (data.table's
# openmp-utils.c is the model).  .facloc$threads holds the user's setting;
# NULL means "decide from the machine and the environment".
.facloc <- new.env(parent = emptyenv())

#' Number of threads facloc uses
#'
#' `facloc_threads()` returns the default number of threads used by every
#' solver; `facloc_threads(n)` sets it for the session and returns the
#' previous value invisibly. `facloc_threads(NULL)` restores automatic
#' detection.
#'
#' The automatic default is the number of processors this R process may run
#' on (its CPU affinity mask), capped by the environment variables
#' `OMP_THREAD_LIMIT` and `OMP_NUM_THREADS` when set, and by 2 while
#' `R CMD check` runs (CRAN's limit, signalled by `_R_CHECK_LIMIT_CORES_`
#' or `_R_CHECK_PACKAGE_NAME_`). The environment is re-read at every call,
#' so `Sys.setenv()` takes effect at once.
#'
#' Any `threads` argument, including the value set here, is capped at the
#' number of available processors and at `OMP_THREAD_LIMIT`: the solvers'
#' spin barriers would only slow down when threads outnumber cores. The
#' number actually used is recorded in each result.
#'
#' The solvers need their cores to themselves: they synchronise their
#' threads at every round (the matrix-free modes thousands of times a
#' solve), so a thread the system pauses for another program holds up the
#' rest. On a machine whose cores are busy with other work, fewer threads
#' can be much faster: on the package's 2-core test machine with two other
#' busy processes, `"hc"` on the `"small"` preset (k = 100) took 0.025 s at
#' 1 thread and 1.8 s at 2, `"nhpc"` 0.04 s and 0.23 s.
#'
#' @param n A whole number of threads (at least 1), or `NULL` for the
#'   automatic default. Missing: just report the current default.
#' @return The current default (for a query), or the previous setting
#'   invisibly (when setting).
#' @export
#' @examples
#' facloc_threads()
#' old <- facloc_threads(1)
#' facloc_threads()
#' facloc_threads(old)
facloc_threads <- function(n) {
  if (missing(n)) {
    if (is.null(.facloc$threads)) return(auto_threads())
    return(resolve_threads(.facloc$threads))
  }
  old <- .facloc$threads
  .facloc$threads <- if (is.null(n)) NULL else check_count(n, "n", cap = TRUE)
  invisible(old)
}

available_cores <- function() {
  .Call(C_facloc_num_procs)
}

env_thread_count <- function(var) {
  value <- suppressWarnings(as.integer(strsplit(Sys.getenv(var), ",", fixed = TRUE)[[1]][1]))
  if (length(value) == 1L && !is.na(value) && value >= 1L) value else NA_integer_
}

in_r_check <- function() {
  limit <- toupper(Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  (nzchar(limit) && limit != "FALSE") || nzchar(Sys.getenv("_R_CHECK_PACKAGE_NAME_"))
}

# The hard cap that applies to every request.
thread_cap <- function() {
  min(available_cores(), env_thread_count("OMP_THREAD_LIMIT"), na.rm = TRUE)
}

auto_threads <- function() {
  n <- min(thread_cap(), env_thread_count("OMP_NUM_THREADS"), na.rm = TRUE)
  if (in_r_check()) n <- min(n, 2L)
  as.integer(max(1L, n))
}

# Validate a `threads` argument and cap it.
resolve_threads <- function(threads, arg = "threads") {
  threads <- check_count(threads, arg, cap = TRUE)
  as.integer(max(1L, min(threads, thread_cap())))
}
