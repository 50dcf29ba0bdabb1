# Mode "stochastic": stochastic greedy with samples drawn from a seed.

stochastic <- function(X, k, seed = 1, epsilon = 0.01, threads = 1, ...) {
  facility_greedy(X, k, mode = "stochastic", threads = threads,
                  control = facility_control(seed = seed, epsilon = epsilon), ...)
}

set.seed(21)
centres <- matrix(rnorm(12 * 4, sd = 5), 12)
X <- centres[sample(12, 400, replace = TRUE), ] + matrix(rnorm(400 * 4), 400)

test_that("the picks depend on the seed only, not on the threads", {
  one <- stochastic(X, 15, seed = 3, sigma = 2, threads = 1)
  two <- stochastic(X, 15, seed = 3, sigma = 2, threads = 2)
  expect_identical(two$selected, one$selected)
  expect_identical(two$gains, one$gains)
  expect_identical(two$objective, one$objective)
  expect_identical(stochastic(X, 15, seed = 3, sigma = 2)$selected, one$selected)
  picks <- lapply(1:4, function(s) stochastic(X, 15, seed = s, sigma = 2)$selected)
  expect_gt(length(unique(picks)), 1L)
})

test_that("each step samples ceiling((m / k) log(1 / epsilon)) candidates", {
  for (eps in c(0.5, 0.1, 0.01)) {
    fit <- stochastic(X, 20, epsilon = eps, sigma = 2)
    size <- min(400, ceiling(400 / 20 * log(1 / eps)))
    open <- 400 - seq_len(20) + 1
    # lazy evaluations skip sampled candidates whose old gain cannot win
    expect_lte(fit$evaluations, sum(pmin(size, open)))
    expect_gte(fit$evaluations, size)
    expect_identical(anyDuplicated(fit$selected), 0L)
  }
  # a sample of one: a random pick each step
  expect_identical(stochastic(X, 4, epsilon = 1, sigma = 2)$evaluations, 4)
})

test_that("epsilon = 0 samples every candidate: plain greedy", {
  W <- ref_similarity(X, sigma = 2)
  ref <- ref_greedy(W, 12)
  for (threads in 1:2) {
    expect_greedy(stochastic(X, 12, epsilon = 0, sigma = 2, threads = threads), ref)
    fit <- facility_greedy(similarity = W, k = 12, mode = "stochastic", threads = threads,
                           control = facility_control(epsilon = 0))
    expect_greedy(fit, ref)
  }
})

test_that("gains and objective are exact for the selection made", {
  w <- rexp(400)
  Y <- X[seq(1, 400, by = 4), ] + 0.3
  fit <- stochastic(X, 10, seed = 9, sigma = 2, threads = 2, weights = w,
                    candidates = Y, initial = c(5, 50))
  W <- ref_similarity(X, Y, sigma = 2)
  expect_equal(fit$objective, ref_objective(W, c(5, 50, fit$selected), w), tolerance = 1e-10)
  start <- ref_objective(W, c(5, 50), w)
  expect_equal(start + cumsum(fit$gains),
               vapply(seq_along(fit$selected), function(t)
                 ref_objective(W, c(5, 50, fit$selected[seq_len(t)]), w), 0),
               tolerance = 1e-10)
  expect_false(any(fit$selected %in% c(5, 50)))
  expect_equal(fit$bound, sum(w))   # on points, only the cap
  expect_output(print(fit), "stochastic")
  expect_output(print(summary(fit)), "Picks")
})

test_that("the mean over 20 seeds stays close to greedy on clustered data", {
  for (P in list(facility_data("small", n = 500), facility_data("heavy_skew", n = 500))) {
    greedy <- facility_greedy(P, 25, mode = "dc", sigma = 20, threads = 1)
    mean_f <- mean(vapply(1:20, function(s)
      stochastic(P, 25, seed = s, sigma = 20)$objective, 0))
    # what these data give (about 96% of greedy; see inst/bench/bench-features.R)
    expect_gte(mean_f / greedy$objective, 0.94)
  }
})

test_that("the mean over 20 seeds reaches 1 - 1/e - epsilon of the optimum", {
  set.seed(4)
  P <- rbind(matrix(rnorm(8, sd = 0.3), 4), matrix(rnorm(10, 3, 0.3), 5),
             matrix(rnorm(10, c(0, 4), 0.5), 5))
  W <- ref_similarity(P, sigma = 1)
  best <- ref_optimum(W, 3)
  mean_f <- mean(vapply(1:20, function(s) stochastic(P, 3, seed = s, epsilon = 0.3,
                                                     sigma = 1)$objective, 0))
  expect_gte(mean_f, (1 - exp(-1) - 0.3) * best)
})
