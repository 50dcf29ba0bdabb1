# Synthetic data of the OCC experiments (Pan et al., 2013) and the adjusted
# Rand index to score recovered clusters.

# Check a simulator's arguments, then draw(n, d, theta, sd) under `seed`
# (NULL: the session's generator; otherwise that is left as it was).  The
# sticks it breaks grow with theta, hence its cap `theta_max`.
draw_checked <- function(n, d, theta, sd, seed, draw, theta_max) {
  n <- check_count(n, "n")
  d <- check_count(d, "d")
  theta <- check_positive(theta, "theta")
  if (theta > theta_max)
    abort_argument("theta", sprintf("must be at most %s, not %s", format(theta_max),
                                    format(theta)))
  sd <- check_positive(sd, "sd")
  if (is.null(seed)) return(draw(n, d, theta, sd))
  seed <- check_count(seed, "seed", min = 0)
  with_seed(seed, draw(n, d, theta, sd))
}

# Beta(a, b) draws one after another, as a loop calling rbeta(1, a, b)
# until a stopping rule holds would make them, in blocks: `take(v)` gets the
# next block v and returns how many of it the loop uses (NA: all, and it
# goes on).  The generator is then rewound to just after the last one
# used, so the draws that follow are the loop's too: a seed gives the same
# data as before the draws were blocked.
rbeta_sequence <- function(a, b, take) {
  if (!exists(".Random.seed", envir = globalenv())) stats::runif(1)   # seed it now
  size <- 64L
  repeat {
    state <- get(".Random.seed", envir = globalenv())
    v <- stats::rbeta(size, a, b)
    used <- take(v)
    if (!is.na(used)) {
      if (used < size) {
        assign(".Random.seed", state, envir = globalenv())
        stats::rbeta(used, a, b)
      }
      return(invisible())
    }
    size <- min(2L * size, 65536L)
  }
}

#' Data from a Dirichlet process mixture
#'
#' Cluster proportions by stick-breaking with concentration `theta` (sticks
#' broken on the fly, as many as the points need: about `theta * log(n)`),
#' cluster means
#' \eqn{\mu_k \sim N(0, I_d)} and points
#' \eqn{x_i \sim N(\mu_{z_i}, s^2 I_d)} with \eqn{s = 1/2}, the clustering
#' data of the OCC experiments.
#'
#' In \eqn{d = 16} a point lies about \eqn{s\sqrt{d} = 2} from its mean and
#' two points of one cluster about 2.8 apart (the point that opens a
#' cluster is itself off the mean, so the far side of its cluster reaches
#' 4 to 4.5 from it), while means are about \eqn{\sqrt{2d} \approx 5.7}
#' apart: DP-means recovers these clusters with `lambda = 5` (adjusted Rand
#' index 0.98 to 1 on six seeds of 1000 points), whereas with `lambda = 1`
#' nearly every point opens a cluster of its own.
#'
#' @param n Number of points.
#' @param d Dimension.
#' @param theta Concentration of the Dirichlet process, a positive number
#'   up to `1e6`.
#' @param sd Standard deviation \eqn{s} of the points around their mean.
#' @param seed Whole number seeding the draw, or `NULL` to use the
#'   session's generator. With a seed the session's random numbers are left
#'   as they were.
#' @return A list with `X` (n x d), `cluster` (true cluster of each point,
#'   numbered by first appearance), `centers` (their means, one row each)
#'   and `weights` (their stick-breaking proportions).
#' @seealso [dpmeans()], [ofl()], [adjusted_rand_index()]
#' @export
#' @examples
#' sim <- dp_data(500, seed = 1)
#' table(sim$cluster)
dp_data <- function(n, d = 16, theta = 1, sd = 0.5, seed = NULL) {
  draw_checked(n, d, theta, sd, seed, theta_max = 1e6, function(n, d, theta, sd) {
    u <- stats::runif(n)
    top <- max(u)
    parts <- list()
    broken <- 0
    left <- 1
    rough <- 0
    rbeta_sequence(1, theta, function(v) {   # break sticks until every u falls
      w <- numeric(length(v))
      for (j in seq_along(v)) {
        w[j] <- left * v[j]
        left <<- left * (1 - v[j])
      }
      parts[[length(parts) + 1L]] <<- w
      before <- broken
      broken <<- broken + length(w)
      # a sum in doubles is within rounding of the exact one: only near top
      # is the exact test needed, `sum(weights) < top` of breaking the
      # sticks one at a time, which cumsum() adds as sum() does
      rough <<- rough + sum(w)
      if (rough < top - 4 * broken * .Machine$double.eps) return(NA)
      last <- which(cumsum(unlist(parts)) >= top)[1]
      if (is.na(last)) return(NA)
      parts <<- list(unlist(parts)[seq_len(last)])
      last - before
    })
    weights <- parts[[1]]
    stick <- findInterval(u, cumsum(weights), left.open = TRUE) + 1L
    stick <- pmin(stick, length(weights))
    used <- unique(stick)
    cluster <- match(stick, used)
    centers <- matrix(stats::rnorm(length(used) * d), length(used), d)
    X <- centers[cluster, , drop = FALSE] + matrix(stats::rnorm(n * d, sd = sd), n, d)
    list(X = X, cluster = cluster, centers = centers, weights = weights[used])
  })
}

#' Data from a beta process latent feature model
#'
#' Feature weights by the stick-breaking construction of the Indian buffet
#' process with mass `theta` (\eqn{\pi_k = \prod_{j \le k} \nu_j},
#' \eqn{\nu_j \sim Beta(\theta, 1)}), truncated once a weight falls below
#' \eqn{10^{-4}}; features \eqn{f_k \sim N(0, I_d)}, memberships
#' \eqn{z_{ik} \sim Bernoulli(\pi_k)} and points
#' \eqn{x_i \sim N(\sum_k z_{ik} f_k, s^2 I_d)} with \eqn{s = 1/2}, the
#' feature data of the OCC experiments.
#'
#' @inheritParams dp_data
#' @param theta Mass of the beta process, a positive number up to `1000`
#'   (there are about `9.2 * theta` weights above the truncation, and each
#'   point has about `theta` features).
#' @return A list with `X` (n x d), `Z` (true n x K binary matrix, features
#'   no point uses dropped), `features` (K x d) and `weights`.
#' @seealso [bpmeans()]
#' @export
#' @examples
#' sim <- bp_data(500, seed = 1)
#' colSums(sim$Z)
bp_data <- function(n, d = 16, theta = 1, sd = 0.5, seed = NULL) {
  draw_checked(n, d, theta, sd, seed, theta_max = 1000, function(n, d, theta, sd) {
    weights <- numeric()
    pi <- 1
    rbeta_sequence(theta, 1, function(v) {   # the draw below 1e-4 is used too
      w <- numeric(length(v))
      for (j in seq_along(v)) {
        pi <<- pi * v[j]
        if (pi < 1e-4) {
          weights <<- c(weights, w[seq_len(j - 1L)])
          return(j)
        }
        w[j] <- pi
      }
      weights <<- c(weights, w)
      NA
    })
    K <- length(weights)
    # Z's uniforms column after column as one runif(n * K) makes them, a
    # block of columns at a time, keeping the used ones
    per <- max(1L, floor(2^22 / n))
    blocks <- lapply(unname(split(seq_len(K), (seq_len(K) - 1L) %/% per)), function(k) {
      z <- matrix(as.integer(stats::runif(n * length(k)) < rep(weights[k], each = n)),
                  n, length(k))
      keep <- colSums(z) > 0
      list(Z = z[, keep, drop = FALSE], used = k[keep])
    })
    Z <- do.call(cbind, c(list(matrix(0L, n, 0L)), lapply(blocks, `[[`, "Z")))
    used <- as.integer(unlist(lapply(blocks, `[[`, "used")))
    features <- matrix(stats::rnorm(K * d), K, d)[used, , drop = FALSE]
    X <- Z %*% features + matrix(stats::rnorm(n * d, sd = sd), n, d)
    list(X = X, Z = Z, features = features, weights = weights[used])
  })
}

#' Adjusted Rand index
#'
#' Agreement of two partitions of the same items, corrected for chance
#' (Hubert and Arabie, 1985): 1 for identical partitions, about 0 for
#' independent ones.
#'
#' @param a,b Labels of the items: atomic vectors (numbers, strings,
#'   factors, ...) of the same length, without `NA`.
#' @return A number.
#' @export
#' @examples
#' adjusted_rand_index(c(1, 1, 2, 2), c("a", "a", "b", "b"))
adjusted_rand_index <- function(a, b) {
  check_labels(a, "a")
  check_labels(b, "b")
  if (length(a) != length(b) || length(a) < 2L)
    abort_argument("b", "must label the same items as `a` (at least two)")
  pairs <- function(m) sum(m * (m - 1) / 2)
  tab <- table(a, b)
  both <- pairs(as.double(tab))
  ra <- pairs(as.double(rowSums(tab)))
  rb <- pairs(as.double(colSums(tab)))
  expected <- ra * rb / pairs(length(a))
  top <- (ra + rb) / 2
  if (top == expected) return(1)
  (both - expected) / (top - expected)
}

# table() would drop an NA label, item and all, and fail unclassed on a list.
check_labels <- function(x, arg) {
  if (missing(x)) abort_missing(arg)
  if (!is.atomic(x) || is.null(x))
    abort_argument(arg, "must be an atomic vector of labels")
  if (anyNA(x)) abort_argument(arg, "must not contain NA labels")
}
