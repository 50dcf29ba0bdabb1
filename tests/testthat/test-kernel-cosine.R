# kernel = "cosine": s_ij = max(0, cos(x_i, y_j)), the exact modes on the
# matrix cosine_similarity() builds, against a plain-R oracle.

ref_cosine <- function(X, Y = X) {
  U <- X / sqrt(rowSums(X^2))
  V <- Y / sqrt(rowSums(Y^2))
  pmax(U %*% t(V), 0)
}

test_that("cosine_similarity equals the plain-R cosine where positive", {
  set.seed(11)
  X <- matrix(rnorm(70 * 9), 70)
  Y <- matrix(rnorm(23 * 9), 23)
  expect_equal(unname(cosine_similarity(X, threads = 1)), ref_cosine(X), tolerance = 1e-12)
  expect_equal(unname(cosine_similarity(X, Y, threads = 2)), ref_cosine(X, Y), tolerance = 1e-12)
  S <- cosine_similarity(X * 1e6 + 0, threads = 1)
  expect_equal(diag(S), rep(1, 70))
  expect_true(all(S >= 0 & S <= 1))
  expect_null(dimnames(S))
  rownames(X) <- paste0("x", 1:70)
  expect_identical(dimnames(cosine_similarity(X, threads = 1)),
                   list(rownames(X), rownames(X)))
  expect_identical(dimnames(cosine_similarity(X, Y, threads = 1)), list(rownames(X), NULL))
  rownames(Y) <- paste0("y", 1:23)
  expect_identical(dimnames(cosine_similarity(X[, 1:9], Y, threads = 1)),
                   list(rownames(X), rownames(Y)))
})

test_that("kernel = \"cosine\" is greedy on the cosine, in every exact mode", {
  for (seed in 1:6) {
    set.seed(seed)
    d <- c(3, 16, 130)[seed %% 3 + 1]
    centres <- matrix(rnorm(4 * d), 4)
    X <- centres[sample(4, 60, TRUE), ] + matrix(rnorm(60 * d, sd = 0.4), 60)
    X[1:5, ] <- X[6:10, ] * 2   # same directions: tied candidates
    W <- ref_cosine(X)
    for (mode in facility_modes("exact")) for (threads in 1:2) {
      fit <- facility_greedy(X, k = 8, mode = mode, kernel = "cosine", threads = threads)
      expect_identical(fit$kernel, "cosine")
      expect_greedy_tied(fit, W, label = sprintf("seed %d, mode %s, %d thread(s)", seed, mode, threads))
    }
    ref <- ref_greedy(W, 8)
    fit <- facility_greedy(X, k = 8, kernel = "cosine", threads = 1)
    expect_identical(fit$mode, "dc")
    expect_equal(fit$gains, ref$gains, tolerance = 1e-9)
  }
})

test_that("kernel = \"cosine\" with candidates, weights and scaled rows", {
  set.seed(5)
  X <- matrix(rnorm(50 * 6), 50)
  Y <- matrix(rnorm(20 * 6), 20)
  w <- runif(50)
  fit <- facility_greedy(X, k = 4, candidates = Y, weights = w, kernel = "cosine",
                         mode = "c", threads = 1)
  ref <- ref_greedy(ref_cosine(X, Y), 4, weights = w)
  expect_identical(fit$selected, as.integer(ref$selected))
  again <- facility_greedy(X * 3, k = 4, candidates = Y * 0.5, weights = w,
                           kernel = "cosine", mode = "c", threads = 1)
  expect_identical(again$selected, fit$selected)
})

test_that("kernel = \"cosine\" refuses what it cannot mean", {
  X <- matrix(rnorm(40), 20)
  expect_arg_error(facility_greedy(X, k = 2, kernel = "cosine", mode = "nhpc", threads = 1), "mode")
  expect_arg_error(facility_greedy(X, k = 2, kernel = "cosine", sigma = 1, threads = 1), "sigma")
  expect_arg_error(facility_greedy(dist(X), k = 2, kernel = "cosine", threads = 1), "X")
  expect_arg_error(facility_greedy(X, k = 2, kernel = "cosines", threads = 1), "kernel")
  X[3, ] <- 0
  expect_arg_error(facility_greedy(X, k = 2, kernel = "cosine", threads = 1), "X")
  expect_arg_error(cosine_similarity(X, threads = 1), "X")
})
