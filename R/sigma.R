# The data-driven default kernel width: the median heuristic.

#' Median heuristic kernel width
#'
#' The default `sigma` of [facility_greedy()], [facility_objective()] and
#' [knn_similarity()]: the median of the Euclidean distances
#' \eqn{\|x_i - x_j\|} over all pairs \eqn{i < j} of rows of `X`, or of a
#' sample of `rows` of them when `X` has more. The distances are not
#' squared, so in the kernel \eqn{\exp(-\|x - y\|^2 / (2\sigma^2))} a pair
#' at the median distance has similarity \eqn{e^{-1/2} \approx 0.61}, and
#' the width follows the scale of the data (multiplying `X` by a constant
#' multiplies `sigma` by it, and leaves the selection unchanged).
#'
#' The sample is `sample.int(nrow(X), rows)` drawn with `set.seed(seed)` under
#' R's Mersenne-Twister, Inversion and Rejection generators, whatever
#' [RNGkind()] says; the caller's random number state is restored
#' afterwards, so the same data always give the same `sigma` and nothing
#' else changes. With 2000 rows the median is taken over about two million
#' distances, which costs a fraction of a second at any `n` (the full median
#' of a million rows would need \eqn{5 \times 10^{11}}{5e11} distances).
#' Where more than half the pairs are duplicates the median is 0, and the
#' median of the non-zero distances is used instead; where every distance
#' is 0 (one row, or identical rows), any width gives the same similarities
#' and `sigma` is 1.
#'
#' For a `dist` object the distances are its entries (between the sampled
#' points when it has more than `rows`).
#'
#' @param X Numeric matrix or all-numeric data frame, one point per row, or
#'   a [stats::dist()] object.
#' @param rows Most rows the median is computed on, a whole number of at
#'   least 2.
#' @param seed Seed of the sample, a whole number.
#' @param threads Number of threads the distances are computed on, by
#'   default [facloc_threads()]; the width is the same at any number.
#' @return \eqn{\sigma}, a positive number.
#' @references Gretton, A., Borgwardt, K. M., Rasch, M. J., Schoelkopf, B.
#'   and Smola, A. (2012). A kernel two-sample test. *Journal of Machine
#'   Learning Research* 13, 723--773 (Section 8: the kernel width set to
#'   the median distance between points).
#'
#'   Garreau, D., Jitkrittum, W. and Kanagawa, M. (2017). Large sample
#'   analysis of the median heuristic. arXiv:1707.07269.
#' @seealso [facility_greedy()]
#' @export
#' @examples
#' facility_sigma(iris[1:4])
#' facility_sigma(1000 * iris[1:4])   # 1000 times larger
#' facility_sigma(dist(faithful))
facility_sigma <- function(X, rows = 2000, seed = 1, threads = facloc_threads()) {
  rows <- check_count(rows, "rows", min = 2)
  seed <- check_count(seed, "seed", min = -.Machine$integer.max)
  threads <- resolve_threads(threads)
  if (inherits(X, "dist")) {
    D <- check_dist(X, "X")
    n <- attr(D, "Size")
  } else {
    X <- check_points(X, "X")
    n <- nrow(X)
  }
  keep <- if (n > rows) sort(with_fixed_rng(seed, sample.int(n, rows)))
  # stats::median(dist()) in C (kernel_sigma.c), with its fallbacks
  out <- if (inherits(X, "dist")) {
    .Call(C_facloc_median_width, as.double(dist_entries(D, keep)))
  } else {
    sample_rows <- if (is.null(keep)) X else X[keep, , drop = FALSE]
    storage.mode(sample_rows) <- "double"
    .Call(C_facloc_median_distance, sample_rows, threads)
  }
  check_status(out$status, "facility_sigma()")
  out$width
}

# sigma = NULL: the median heuristic on the clients (points or a dist),
# on the solve's threads.
resolve_sigma <- function(sigma, X, threads) {
  check_sigma(if (is.null(sigma)) facility_sigma(X, threads = threads) else sigma)
}
