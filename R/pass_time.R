# facility_pass_time(): the speed reference of the matrix-free solvers.

#' Time of one exhaustive pass over all similarities
#'
#' Times one pass that computes every candidate's initial gain
#' \eqn{\sum_i s_{ij}} with the package's RBF kernel, visiting all
#' \eqn{n^2} client-candidate pairs (the candidates are the clients). Any
#' solver that does not prune pays at least this once; dividing a solver's
#' `seconds` by it gives a speed figure that carries over between machines.
#'
#' The pass runs the tiled kernel of the exact modes (the one that builds
#' their similarity matrix): a block of candidates against a block of
#' clients, squared distances as \eqn{|x|^2 + |y|^2 - 2 x \cdot y} with
#' register tiles as in a matrix product (no BLAS), and a vectorised
#' `exp()` within 1 ulp of the C library's. From d = 128 on it runs
#' several times faster per pair than the matrix-free modes' block kernel
#' (`inst/bench/kernel-peak.c`), so ratios to it are larger than with the
#' pair-by-pair pass before it (see NEWS) and not comparable with them.
#'
#' @inheritParams facility_greedy
#' @param X Numeric matrix or all-numeric data frame, one point per row.
#' @param sigma Kernel width \eqn{\sigma}, a positive number; the
#'   specification's 20 by default, as in the benchmarks (the time hardly
#'   depends on it).
#' @param repeats Number of timed passes; the fastest is returned.
#' @return The elapsed seconds of the fastest pass, a number with
#'   attributes `pairs` (\eqn{n^2}), `threads` (after capping) and `gains`
#'   (the initial gains, for checking).
#' @seealso [facility_greedy()], whose results report `pairs`, the number
#'   of similarities a solve computed, to compare with \eqn{n^2}.
#' @export
#' @examples
#' X <- matrix(rnorm(2000 * 8), ncol = 8)
#' facility_pass_time(X, sigma = 2, threads = 1)
facility_pass_time <- function(X, sigma = 20, threads = facloc_threads(), repeats = 1) {
  X <- check_points(X, "X")
  sigma <- check_sigma(sigma)
  threads <- resolve_threads(threads)
  repeats <- check_count(repeats, "repeats")
  x <- point_rows(X, threads)
  best <- Inf
  for (r in seq_len(repeats)) {
    started <- proc.time()[["elapsed"]]
    out <- .Call(C_facloc_pass, x, sigma, threads)
    best <- min(best, proc.time()[["elapsed"]] - started)
    check_status(out$status, "facility_pass_time()")
  }
  structure(best, pairs = as.double(nrow(X))^2, threads = threads, gains = out$gains)
}
