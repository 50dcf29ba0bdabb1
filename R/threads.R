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
#' barriers would only slow down when threads outnumber cores. The
#' number actually used is recorded in each result.
#'
#' Inside a forked child, such as a worker of [parallel::mclapply()], of
#' `parallel::mcparallel()` or of the `future` package's multicore plan,
#' the default is one thread, as in data.table: such workers usually run one
#' per core already, and a full team of threads in each would make them
#' wait on each other. A setting made in the parent is not inherited. To
#' opt out, call `facloc_threads(n)` inside the worker, or pass `threads`
#' to the solver there; both are honoured (and capped as below), unless
#' facloc ran several threads in the parent before the fork: GCC's OpenMP
#' runtime (libgomp) then hangs in the child at its first parallel region,
#' so facloc uses one thread there and warns once. Workers that start a
#' fresh R (`parallel::makeCluster()`'s default PSOCK cluster) have none of
#' these limits and use the usual default.
#'
#' The solvers synchronise their threads at every round (the matrix-free
#' modes thousands of times a solve), so a thread the system pauses for
#' another program holds up the rest, a time slice at each meeting. So
#' facloc measures whether the processors are oversubscribed: on Linux, how
#' long the calling thread waited, ready to run, for a processor (its run
#' delay in `/proc/thread-self/schedstat`), over windows of 10 ms. After a
#' window in which it waited more than a tenth of the time, every parallel
#' region runs on one thread for 50 ms, doubling up to a second while the
#' load stays, and full teams come back once a window at full strength is
#' free of it. The answer never changes: it depends on the `threads`
#' asked for (the matrix-free modes' heaps and batches, OCC's epochs),
#' never on how many threads run a region, which only divides the work.
#' On the package's 2-core test machine, beside a second R solving
#' `"medium"` at 2 threads in a loop (with this build or an older one whose
#' teams keep their size), every case of
#' `inst/bench/under-load.sh` took 0.96 to 1.17 times as long at 2 threads
#' as at 1 (up to 24 times before), and 0.68 to 1.20 times beside two busy
#' loops; alone, 2 threads took 0.55 to 0.85 times as long as 1. Elsewhere
#' (macOS, Windows) teams keep their size. facloc's own waits (the group barriers of `"nhpc"`)
#' spin for about 60 microseconds, yield, then sleep. Work too small to pay
#' for a team runs on one thread, with the same answer: a problem of fewer
#' than 1e5 client-candidate pairs never starts a team (`iris`, `faithful`:
#' `"nhpc"` at 2 threads took 0.60 to 0.64 times as long as before), nor do
#' rounds of the exact modes below that many pairs, nor an `"nhpc"` round
#' after one of fewer than 30,000 pairs and clients. OpenMP's own waits
#' at the end of a region are the runtime's: GCC's spins for milliseconds
#' before it sleeps, which `OMP_WAIT_POLICY=passive` in R's environment
#' (set before R starts) shortens.
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
  old <- if (set_here()) .facloc$threads
  if (missing(n)) {
    if (is.null(old)) return(auto_threads())
    return(cap_threads(old))
  }
  .facloc$threads <- if (is.null(n)) NULL else check_count(n, "n", cap = TRUE)
  .facloc$set_by <- Sys.getpid()
  invisible(old)
}

# The process that loaded the package: any other one running this code is
# a forked child (mclapply), which inherits the parent's memory but not,
# here, its threads.
.onLoad <- function(libname, pkgname) {
  .facloc$loaded_by <- Sys.getpid()
}

forked_child <- function() {
  !is.null(.facloc$loaded_by) && .facloc$loaded_by != Sys.getpid()
}

# Whether the user's setting was made in this process.
set_here <- function() {
  !is.null(.facloc$threads) && identical(.facloc$set_by, Sys.getpid())
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
  if (forked_child()) return(1L)
  n <- min(thread_cap(), env_thread_count("OMP_NUM_THREADS"), na.rm = TRUE)
  if (in_r_check()) n <- min(n, 2L)
  as.integer(max(1L, n))
}

cap_threads <- function(threads, arg = "threads") {
  threads <- check_count(threads, arg, cap = TRUE)
  as.integer(max(1L, min(threads, thread_cap())))
}

# Validate a solver's `threads` argument and cap it, in a forked child
# too.
resolve_threads <- function(threads, arg = "threads") {
  threads <- cap_threads(threads, arg)
  if (threads > 1L && teams_before_fork()) {
    if (is.null(.facloc$warned_fork)) {
      .facloc$warned_fork <- TRUE
      warning("facloc uses 1 thread in this forked child: the parent ran ",
              "OpenMP threads before the fork, and they would hang here", call. = FALSE)
    }
    return(1L)
  }
  if (threads > 1L) .facloc$teams_by <- Sys.getpid()
  threads
}

# Whether a process this one was forked from may have started an OpenMP
# team (libgomp keeps its pool of threads, which the child lacks).
teams_before_fork <- function() {
  !is.null(.facloc$teams_by) && .facloc$teams_by != Sys.getpid()
}

# How the solvers size their teams (see fl_threads.c): "auto" measures the
# load and runs regions on one thread while the processors are
# oversubscribed; "one" always; "full" never, and gives every region the
# threads asked for, below the work cut-offs too (tests). Returns the counts
# since the process started: windows judged, contended, regions shrunk to
# one thread by the load, and regions run on several threads (teams).
# Internal: answers never depend on it.
team_policy <- function(policy = NULL) {
  code <- if (is.null(policy)) NA_integer_ else match(match.arg(policy, c("auto", "one", "full")),
                                                       c("auto", "one", "full")) - 1L
  counts <- .Call(C_facloc_team, code)
  names(counts) <- c("windows", "contended", "shrunk", "teams")
  counts
}
