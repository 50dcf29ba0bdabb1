#' Sparse k-nearest-neighbour RBF similarity
#'
#' Builds the clients x candidates similarity that keeps, for each client,
#' only its `k` nearest candidates:
#' \eqn{s_{ij} = \exp(-\|x_i - y_j\|^2 / (2\sigma^2))} when \eqn{y_j} is one
#' of the `k` candidates nearest to \eqn{x_i} (ties to the lowest index), 0
#' otherwise. Each client can then only be served by one of its `k` nearest
#' candidates. The result is a sparse `Matrix::dgCMatrix` with exactly `k`
#' non-zeros per row (a zero similarity that underflows is still stored), so
#' [facility_greedy()] can solve large instances in memory proportional to
#' \eqn{n k} instead of \eqn{n m}.
#'
#' The dense matrix is never formed. The neighbour search is exact and runs
#' in C, threads splitting the clients: the candidates are grouped around
#' about \eqn{\sqrt{m}} k-means centres, and a client skips every group and
#' every candidate that the triangle inequality places farther away than
#' its current `k`-th neighbour. The answer does not depend on the number
#' of threads. Working memory is about 24 bytes per non-zero beyond the
#' result (12 bytes per non-zero) and the data.
#'
#' @param X Numeric matrix or all-numeric data frame, one client per row.
#' @param k Number of neighbours kept per client, from 1 to the number of
#'   candidates. Clients are their own nearest candidates when `candidates`
#'   is `NULL`.
#' @param sigma Kernel width \eqn{\sigma}, a positive number, or `NULL`
#'   (the default) for the median heuristic of [facility_sigma()] on `X`,
#'   as in [facility_greedy()].
#' @param candidates Optional matrix of candidate sites with the columns of
#'   `X`; default: the clients themselves.
#' @param threads Number of threads, by default [facloc_threads()].
#' @return An \eqn{n \times m} `dgCMatrix`, clients in rows and candidates in
#'   columns, for the `similarity` argument of [facility_greedy()] and
#'   [facility_objective()]. Needs the Matrix package.
#' @seealso [facility_greedy()]
#' @export
#' @examples
#' if (requireNamespace("Matrix", quietly = TRUE)) {
#'   set.seed(1)
#'   X <- matrix(rnorm(2000 * 2), ncol = 2)
#'   S <- knn_similarity(X, k = 10, sigma = 0.5, threads = 1)
#'   fit <- facility_greedy(similarity = S, k = 5, mode = "dc", threads = 1)
#'   fit$selected
#' }
knn_similarity <- function(X, k = 20, sigma = NULL, candidates = NULL,
                           threads = facloc_threads()) {
  if (!requireNamespace("Matrix", quietly = TRUE))
    facloc_abort("knn_similarity() needs the Matrix package", "facloc_error_unsupported")
  X <- check_points(X, "X")
  Y <- X
  if (!is.null(candidates)) {
    Y <- check_points(candidates, "candidates")
    if (ncol(Y) != ncol(X))
      abort_argument("candidates", sprintf("must have the %d columns of `X`, not %d",
                                           ncol(X), ncol(Y)))
  }
  n <- nrow(X)
  m <- nrow(Y)
  k <- check_count(k, "k", max = m)
  if (as.double(n) * k > .Machine$integer.max)
    abort_argument("k", sprintf("gives %.0f non-zeros, more than a dgCMatrix holds", as.double(n) * k))
  threads <- resolve_threads(threads)
  sigma <- resolve_sigma(sigma, X, threads)
  nnz <- as.double(n) * k
  bytes <- 24 * nnz + .Call(C_facloc_knn_bytes, m, ncol(X), k, threads)
  check_memory(bytes, sprintf("knn_similarity() on %d clients and %d candidates", n, m),
               "use a smaller `k`")
  out <- .Call(C_facloc_knn_similarity, point_rows(X, threads),
               if (is.null(candidates)) NULL else point_rows(Y, threads),
               k, sigma, threads)
  check_status(out$status, "knn_similarity()")
  methods::new("dgCMatrix", i = out$i, p = out$p, x = out$x, Dim = c(n, m),
               Dimnames = list(NULL, NULL))
}
