# dp_data() and bp_data(): the stick-breaking models they simulate, drawn
# fast in blocks, with theta capped.

test_that("the generators follow the stick-breaking models", {
  sim <- dp_data(500, d = 5, seed = 1)
  expect_equal(dim(sim$X), c(500, 5))
  expect_equal(sort(unique(sim$cluster)), seq_len(nrow(sim$centers)))
  expect_identical(dp_data(50, seed = 2), dp_data(50, seed = 2))
  b <- bp_data(400, seed = 3)
  expect_equal(dim(b$X), c(400, 16))
  expect_equal(ncol(b$Z), nrow(b$features))
  expect_true(all(diff(b$weights) <= 0) && all(b$weights >= 1e-4))
  expect_equal(colMeans(b$Z)[1], b$weights[1], tolerance = 0.15)
  set.seed(5); r <- runif(1); set.seed(5); invisible(dp_data(10, seed = 1))
  expect_identical(runif(1), r)                       # session RNG untouched
})

test_that("the simulators break many sticks fast and cap theta", {
  sim <- with_time_limit(20, dp_data(20, d = 2, theta = 2e5, seed = 1))
  expect_identical(dim(sim$X), c(20L, 2L))
  expect_lte(max(sim$cluster), 20L)
  bp <- with_time_limit(20, bp_data(20, d = 2, theta = 1000, seed = 1))
  expect_identical(nrow(bp$Z), 20L)
  expect_gt(mean(rowSums(bp$Z)), 500)        # about theta features a point
  expect_arg_error(dp_data(10, theta = 1e300), "theta")
  expect_arg_error(dp_data(10, theta = 1.1e6), "theta")
  expect_arg_error(bp_data(50, theta = 1e6), "theta")
  expect_arg_error(bp_data(50, theta = 1001), "theta")
})

test_that("blocked stick-breaking draws what breaking one at a time did", {
  # the simulators as they were, one rbeta(1) per stick
  dp_one <- function(n, d, theta, sd) {
    u <- runif(n)
    weights <- numeric()
    left <- 1
    while (sum(weights) < max(u)) {
      v <- rbeta(1, 1, theta)
      weights <- c(weights, left * v)
      left <- left * (1 - v)
    }
    stick <- pmin(findInterval(u, cumsum(weights), left.open = TRUE) + 1L, length(weights))
    used <- unique(stick)
    cluster <- match(stick, used)
    centers <- matrix(rnorm(length(used) * d), length(used), d)
    X <- centers[cluster, , drop = FALSE] + matrix(rnorm(n * d, sd = sd), n, d)
    list(X = X, cluster = cluster, centers = centers, weights = weights[used])
  }
  bp_one <- function(n, d, theta, sd) {
    weights <- numeric()
    pi <- 1
    repeat {
      pi <- pi * rbeta(1, theta, 1)
      if (pi < 1e-4) break
      weights <- c(weights, pi)
    }
    K <- length(weights)
    Z <- matrix(as.integer(runif(n * K) < rep(weights, each = n)), n, K)
    features <- matrix(rnorm(K * d), K, d)
    used <- colSums(Z) > 0
    X <- Z[, used, drop = FALSE] %*% features[used, , drop = FALSE] +
      matrix(rnorm(n * d, sd = sd), n, d)
    list(X = X, Z = Z[, used, drop = FALSE], features = features[used, , drop = FALSE],
         weights = weights[used])
  }
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
  for (seed in 1:4) for (theta in c(0.5, 1, 20)) {
    set.seed(seed)
    want <- dp_one(60, 3, theta, 0.5)
    expect_identical(dp_data(60, d = 3, theta = theta, seed = seed), want)
    set.seed(seed)
    want <- bp_one(60, 3, theta, 0.5)
    expect_identical(bp_data(60, d = 3, theta = theta, seed = seed), want)
  }
  # unseeded, they go on from the session's generator as before
  set.seed(9)
  want <- list(dp_one(40, 2, 2, 0.5), bp_one(40, 2, 2, 0.5), runif(2))
  set.seed(9)
  expect_identical(list(dp_data(40, d = 2, theta = 2), bp_data(40, d = 2, theta = 2), runif(2)),
                   want)
})
