#' Cosine similarity of points, where positive
#'
#' The similarity of embeddings: \eqn{s_{ij} = \max(0, \cos(x_i, y_j))}, the
#' cosine of the angle between client \eqn{x_i} and candidate \eqn{y_j}
#' where it is positive, 0 otherwise. A dense \eqn{n \times m} matrix for
#' the `similarity` argument of [facility_greedy()] (which builds it itself
#' with `kernel = "cosine"`) and [facility_objective()].
#'
#' Unrelated or opposite points then cover each other not at all, as far
#' points do under the Gaussian kernel. The other common form,
#' \eqn{(1 + \cos) / 2}, gives every pair of orthogonal points 1/2, and
#' random directions in hundreds of dimensions are nearly orthogonal: every
#' set would cover about half of every point, and the objective would hardly
#' tell a diverse set from a redundant one. Scaling a row does not change
#' its similarities; rows of zeros have no direction and are refused.
#'
#' The rows are scaled to unit length and the matrix computed in C by the
#' tiled kernel of the exact modes (\eqn{\cos = 1 - |x - y|^2 / 2} for unit
#' vectors, as a blocked matrix product, threads splitting the candidates).
#'
#' @param X Numeric matrix or all-numeric data frame, one client per row.
#' @param candidates Optional matrix of candidate sites with the columns of
#'   `X`; default: the clients themselves.
#' @param threads Number of threads, by default [facloc_threads()].
#' @return An \eqn{n \times m} numeric matrix, clients in rows, candidates
#'   in columns, entries in \eqn{[0, 1]}.
#' @seealso [facility_greedy()] (`kernel = "cosine"`)
#' @export
#' @examples
#' set.seed(1)
#' E <- matrix(rnorm(200 * 16), ncol = 16)   # 200 "embeddings"
#' S <- cosine_similarity(E, threads = 1)
#' fit <- facility_greedy(similarity = S, k = 5, mode = "dc", threads = 1)
#' fit$selected
cosine_similarity <- function(X, candidates = NULL, threads = facloc_threads()) {
  X <- unit_rows(check_points(X, "X"), "X")
  Y <- NULL
  if (!is.null(candidates)) {
    Y <- unit_rows(check_points(candidates, "candidates"), "candidates")
    if (ncol(Y) != ncol(X))
      abort_argument("candidates", sprintf("must have the %d columns of `X`, not %d", ncol(X), ncol(Y)))
  }
  threads <- resolve_threads(threads)
  names <- list(rownames(X), rownames(if (is.null(Y)) X else Y))
  out <- .Call(C_facloc_cosine, point_rows(X, threads),
               if (!is.null(Y)) point_rows(Y, threads), threads,
               if (!all(vapply(names, is.null, NA))) names)
  check_status(out$status, "cosine_similarity()")
  out$similarity
}

# Rows scaled to unit length; a row of zeros has no direction.
unit_rows <- function(X, arg) {
  len <- sqrt(rowSums(X * X))
  if (any(len == 0))
    abort_argument(arg, sprintf("must have no row of zeros for the cosine (row %d is)",
                                which(len == 0)[1]))
  X / len
}
