# Plumbing shared by dpmeans(), ofl() and bpmeans(): argument checks, the
# .Call, mapping results back to the caller's rows, the equivalent serial
# order and its replay.

occ_kinds <- c(dpmeans = 0L, ofl = 1L, bpmeans = 2L)

# Validated settings of one run.  `fun` names the calling function in errors.
occ_settings <- function(fun, X, lambda, threads, method, batch, max_iter,
                         seed, order, cl) {
  X <- check_points(X, "X")
  n <- nrow(X)
  lambda <- check_positive(lambda, "lambda")
  # the engines compare squared distances with lambda^2: an infinite one
  # would never open a cluster (objective NaN)
  if (!is.finite(lambda^2))
    abort_argument("lambda", sprintf("must be at most %.6g (its square must be finite), not %s",
                                     sqrt(.Machine$double.xmax), format(lambda)))
  # `threads` as asked sets the number of OCC workers P, so the answer is the
  # same on every machine; the threads that run them are capped at the cores.
  # With a cluster, `threads` are each worker's, capped on the worker.
  requested <- check_count(threads, "threads")
  threads <- if (is.null(cl)) resolve_threads(requested) else requested
  method <- check_choice(method, c("occ", "serial"), "method")
  max_iter <- check_count(max_iter, "max_iter")
  if (!is.null(seed)) seed <- check_count(seed, "seed", min = 0)
  if (!is.null(order) && method != "serial")
    abort_argument("order", "is only used with method = \"serial\"")
  if (!is.null(cl) && method == "serial")
    abort_argument("cl", "needs method = \"occ\": the serial algorithm runs on one process")
  # Workers past the n-th would hold no rows: with n of them an OCC pass is
  # already one epoch of one row each, so capping changes no result, and
  # keeps per-worker work and scratch from growing with `threads`.
  workers <- if (method == "serial") 1L
             else if (!is.null(cl)) cluster_size(cl, n) else min(requested, n)
  batch <- if (is.null(batch)) default_batch(n, workers)
           else check_count(batch, "batch")
  batch <- min(batch, ceiling(n / workers))
  list(fun = fun, X = X, n = n, d = ncol(X), lambda = lambda, threads = threads,
       method = method, workers = as.integer(workers), batch = as.integer(batch),
       max_iter = max_iter, seed = seed,
       order = if (!is.null(order)) check_order(order, n) - 1L)
}

# About 64 epochs per pass: the first epoch (every point proposes while no
# center exists) then costs the serial validation 1/64 of a pass.
default_batch <- function(n, workers) {
  as.integer(max(1, ceiling(n / (64 * workers))))
}

# A visiting order: a permutation of 1..n, or a matrix with n rows whose
# columns are permutations (column t for pass t, the last one reused).
check_order <- function(order, n) {
  m <- if (is.matrix(order)) order else matrix(order, ncol = 1L)
  if (!is.numeric(m) || nrow(m) != n || ncol(m) < 1L || anyNA(m))
    abort_argument("order", sprintf("must be a permutation of 1..%d or a matrix of them, one column per pass", n))
  ok <- apply(m, 2L, function(col) all(sort(col) == seq_len(n)))
  if (!all(ok))
    abort_argument("order", sprintf("must be a permutation of 1..%d in every column", n))
  storage.mode(m) <- "integer"
  m
}

# Run the C engine on the rows of X in the order `perm` (NULL = as given).
occ_call <- function(kind, X, lambda, serial, workers, batch, order, shards,
                     threads, max_iter, u = NULL, perm = NULL, what) {
  x <- if (is.null(perm)) X else X[perm, , drop = FALSE]   # C makes it row-major
  # the points, per-point state, and proposal scratch (at most 16 MiB or
  # one epoch, see max_chunk() in src/occ_common.c)
  scratch <- max(2^24, as.double(workers) * batch * (16 * ncol(X) + 1))
  bytes <- 8 * as.double(length(x)) + 32 * nrow(X) + scratch
  check_memory(bytes, sprintf("%s on %d points", what, nrow(X)), "use fewer points")
  control <- list(lambda = lambda, serial = as.integer(serial), workers = workers,
                  batch = batch, order = order, shards = as.integer(shards),
                  threads = threads, max_iter = max_iter, u = u)
  started <- proc.time()[["elapsed"]]
  out <- .Call(C_facloc_occ, occ_kinds[[kind]], x, control)
  out$seconds <- proc.time()[["elapsed"]] - started
  occ_check_status(out$status, what)
  out
}

occ_check_status <- function(status, what) {
  if (status == 1L)
    facloc_abort(sprintf("%s could not allocate its working memory", what),
                 "facloc_error_memory")
  check_status(status, what)
}

# The run of a validated setting `s`: distributed on `cl`, else threaded.
occ_fit <- function(s, cl, u = NULL) {
  if (!is.null(cl)) occ_distributed(s$fun, s, cl, u) else occ_threaded(s$fun, s, u)
}

# The threaded run of a validated setting: OCC epochs, or the serial pass in
# the given order (a seed then shuffles the visiting order once).
occ_threaded <- function(kind, s, u = NULL) {
  perm <- if (!is.null(s$seed) && kind != "ofl" && is.null(s$order))
    with_seed(s$seed, sample.int(s$n)) else NULL
  serial <- s$method == "serial"
  out <- occ_call(kind, s$X, s$lambda, serial, s$workers, s$batch, s$order,
                  shards = s$workers, s$threads, s$max_iter, u, perm,
                  what = sprintf("%s(method = \"%s\")", kind, s$method))
  occ_result(kind, out, s, perm)
}

with_seed <- function(seed, expr) {
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv())
          else assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed)
  expr
}

# The result object: rows of the C output (visiting positions) mapped back
# to the caller's rows.
occ_result <- function(kind, out, s, perm) {
  tr <- out$trace
  back <- function(i) if (is.null(perm)) i else perm[i]
  epochs <- data.frame(iteration = tr$epoch_iteration,
                       epoch = stats::ave(tr$epoch_iteration, tr$epoch_iteration,
                                          FUN = seq_along),
                       proposed = tr$proposed, accepted = tr$accepted,
                       rejected = tr$proposed - tr$accepted, seconds = tr$seconds)
  fit <- list(objective = tr$objective[tr$iterations], objectives = tr$objective,
              iterations = tr$iterations, converged = tr$converged,
              epochs = epochs,
              proposals = data.frame(iteration = tr$proposal_pass,
                                     point = back(tr$proposals)),
              method = s$method, lambda = s$lambda, threads = s$threads,
              workers = s$workers, batch = s$batch, n = s$n, d = s$d,
              max_iter = s$max_iter, seed = s$seed, permutation = perm,
              order = s$order, seconds = out$seconds)
  if (kind == "bpmeans") {
    Z <- out$Z
    if (!is.null(perm)) Z[perm, ] <- Z
    fit$Z <- Z
    fit$features <- out$features
  } else {
    cluster <- out$cluster
    if (!is.null(perm)) cluster[perm] <- cluster
    fit$cluster <- cluster
    fit$centers <- out$centers
    fit$size <- tabulate(cluster, nrow(out$centers))
  }
  if (kind == "ofl") {
    fit$facilities <- back(out$facility)
    fit$cost <- out$cost
  }
  structure(fit, class = c(kind, "occ_fit"))
}

#' Equivalent serial order of an OCC run
#'
#' An OCC pass equals the serial pass over the same rows in the same order:
#' workers propose for consecutive rows, and validation goes through each
#' epoch in row order, letting the points that did not propose meet the
#' centers accepted before them, as the serial pass shows them. So
#' `serial_order()` of an OCC run is the row order (after the `seed`'s
#' shuffle, for DP-means and BP-means), and running the serial algorithm in
#' it (`method = "serial", order =`) gives the same clusters, centers and
#' features; of a serial run, it is the order it visited. Sums at the end of
#' a pass are taken per worker's rows and added in worker order, so the
#' objective may differ from the serial run's in the last bits; the internal
#' `facloc:::occ_replay()` sums the same way, and so reproduces the run to
#' the last bit, objective included.
#'
#' @param fit A result of [dpmeans()], [ofl()] or [bpmeans()].
#' @return An integer matrix with one row per point and one column per pass:
#'   column t lists the rows of `X` in the order of pass t.
#' @export
#' @examples
#' X <- dp_data(300, seed = 1)$X
#' fit <- dpmeans(X, lambda = 5, threads = 2, batch = 10)
#' ord <- serial_order(fit)
#' again <- dpmeans(X, lambda = 5, method = "serial", order = ord)
#' identical(again$cluster, fit$cluster)
#' # with no seed, that is the rows' own order
#' identical(dpmeans(X, lambda = 5, method = "serial")$cluster, fit$cluster)
serial_order <- function(fit) {
  if (!inherits(fit, "occ_fit"))
    abort_argument("fit", "must be a result of dpmeans(), ofl() or bpmeans()")
  ord <- if (!is.null(fit$order)) fit$order + 1L
         else matrix(if (is.null(fit$permutation)) seq_len(fit$n) else fit$permutation, ncol = 1L)
  ord[, pmin(seq_len(fit$iterations), ncol(ord)), drop = FALSE]
}

# Serial run in the fit's equivalent order with its summation shards (each
# worker's blocks of `batch` rows): the result is identical to the fit.
# Used by the tests.
occ_replay <- function(fit, X, threads = 1L) {
  kind <- class(fit)[1]
  X <- check_points(X, "X")
  perm <- fit$permutation
  inverse <- if (is.null(perm)) seq_len(fit$n) else order(perm)
  ord <- serial_order(fit)
  ord[] <- inverse[ord] - 1L
  u <- if (kind == "ofl") fit$uniforms
  out <- occ_call(kind, X, fit$lambda, serial = TRUE, workers = 1L, batch = fit$batch,
                  order = ord, shards = fit$workers, threads = threads,
                  max_iter = fit$iterations, u = u, perm = perm, what = "replay")
  s <- list(method = "serial", lambda = fit$lambda, threads = threads, workers = 1L,
            batch = 1L, n = fit$n, d = fit$d, max_iter = fit$iterations,
            seed = fit$seed, order = ord)
  occ_result(kind, out, s, perm)
}
