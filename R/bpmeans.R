#' BP-means latent features, serial or with optimistic concurrency control
#'
#' Minimises the BP-means objective (Broderick, Kulis and Jordan, 2013)
#' \deqn{\|X - Z A\|_F^2 + \lambda^2 K}
#' over binary feature assignments \eqn{Z} (n x K), features \eqn{A}
#' (K x d) and their number \eqn{K}. Visiting a point, its entries of
#' \eqn{Z} are set greedily feature by feature (on when subtracting the
#' feature lowers the residual's norm); if the residual is still farther
#' than `lambda` from zero it becomes a new feature. After each pass unused
#' features are dropped and \eqn{A = (Z'Z)^{-1} Z'X}; passes repeat until
#' \eqn{Z} stops changing, and the objective never increases.
#'
#' In the OCC version (see [dpmeans()] for the epochs), workers propose the
#' residuals left by the features known at the epoch's start; validation
#' continues the greedy assignment with the features accepted earlier in
#' the epoch and accepts the residual as a new feature only if its norm is
#' still above `lambda`; the points that did not propose continue it with
#' those features too. The greedy assignment only ever lowers the residual's
#' norm, so they never propose late, and the run equals the serial algorithm
#' (`method = "serial"`) on the same rows, for any number of workers and
#' `batch` (see [serial_order()]).
#'
#' @inheritParams dpmeans
#' @param lambda Residual norm above which a point creates a new feature
#'   (each feature costs `lambda^2`); a positive number whose square is
#'   finite (at most about `1.34e154`).
#' @return An object of class `c("bpmeans", "occ_fit")` with the components
#'   of [dpmeans()] except `cluster`, `centers` and `size`, and instead
#'   \item{Z}{n x K binary (0/1 integer) matrix of feature assignments.}
#'   \item{features}{K x d matrix A of features.}
#' @references Broderick, T., Kulis, B. and Jordan, M. I. (2013).
#'   MAD-Bayes: MAP-based asymptotic derivations from Bayes. ICML.
#' @seealso [dpmeans()], [bp_data()], [serial_order()]
#' @export
#' @examples
#' sim <- bp_data(500, seed = 1)
#' fit <- bpmeans(sim$X, lambda = 5, threads = 2)
#' fit
#' head(predict(fit, sim$X))
bpmeans <- function(X, lambda, threads = facloc_threads(),
                    method = c("occ", "serial"), batch = NULL, max_iter = 100,
                    seed = NULL, order = NULL, cl = NULL) {
  s <- occ_settings("bpmeans", X, lambda, threads, method, batch, max_iter,
                    seed, order, cl)
  occ_fit(s, cl)
}
