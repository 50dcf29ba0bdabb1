#' Online facility location, serial or with optimistic concurrency control
#'
#' Meyerson's online facility location with facility cost \eqn{\lambda^2}
#' and squared-distance service cost: visiting point \eqn{x}, with
#' \eqn{D} its distance to the nearest open facility, a facility opens at
#' \eqn{x} with probability \eqn{\min(1, D^2 / \lambda^2)}; otherwise
#' \eqn{x} is served by that facility. One pass.
#'
#' Each point gets its own uniform random number, drawn in R from `seed`,
#' and opens a facility when that number is below \eqn{D^2 / \lambda^2}.
#' In the OCC version (see [dpmeans()] for the epochs), workers propose the
#' points that would open a facility against the facilities known at the
#' epoch's start; validation re-decides each proposal, with the same
#' number, against the facilities accepted earlier in the epoch, and the
#' points that did not propose are then served by the nearest of those too.
#' Since \eqn{D} can only shrink, a point that did not propose would not
#' have opened a facility either, and the run equals the serial pass
#' (`method = "serial"`, same seed), for any number of workers, threads and
#' batch; on a cluster (`cl`) too.
#'
#' @inheritParams dpmeans
#' @param lambda Square root of the facility cost, a positive number whose
#'   square is finite (at most about `1.34e154`).
#' @param seed Seed of the per-point random numbers (a whole number), or
#'   `NULL` to draw them from the session's generator (after `set.seed()`,
#'   say). With a seed the session's random numbers are left as they were.
#' @return An object of class `c("ofl", "occ_fit")` with the components of
#'   [dpmeans()] (`centers` are the open facilities, `cluster` the facility
#'   serving each point when it arrived, `iterations` is 1), plus
#'   `facilities` (rows of `X` that opened one), `cost` (service cost of
#'   each point on arrival) and `uniforms` (the random numbers). The
#'   objective is \eqn{\lambda^2 K} plus the summed service costs.
#' @references Meyerson, A. (2001). Online facility location. FOCS.
#' @seealso [dpmeans()], [serial_order()]
#' @export
#' @examples
#' X <- dp_data(1000, seed = 2)$X
#' fit <- ofl(X, lambda = 5, seed = 1, threads = 2)
#' fit
#' same <- ofl(X, lambda = 5, seed = 1, method = "serial")
#' identical(same$facilities, fit$facilities)
ofl <- function(X, lambda, threads = facloc_threads(), method = c("occ", "serial"),
                batch = NULL, seed = NULL, order = NULL, cl = NULL) {
  s <- occ_settings("ofl", X, lambda, threads, method, batch, max_iter = 1,
                    seed, order, cl)
  u <- if (is.null(s$seed)) stats::runif(s$n) else with_seed(s$seed, stats::runif(s$n))
  fit <- occ_fit(s, cl, u)
  fit$uniforms <- u
  fit
}
