# facility_control(precision = "single"): the exact modes hold their
# matrix in single precision, rounded up.  Against the plain-R oracle on
# the double matrix: the same picks wherever no two gains lie within that
# rounding, f(S) recomputed exactly, every bound a true bound.

single <- facility_control(precision = "single")

# How far above W the single-precision matrix may read, relatively, at
# most: the float tiles lower each squared distance by gamma (|x|^2 +
# |y|^2) (norms about the clients' mean; gamma bounds the error of a slice
# of FL_TILE_DEPTH = 128 products summed in float, which may have lowered
# it by as much already), then the value is rounded up to single precision
# (2^-23, after a 2^-40 margin).
single_inflation <- function(X, Y, sigma) {
  centre <- colMeans(X)
  xn <- colSums((t(X) - centre)^2)
  yn <- colSums((t(Y) - centre)^2)
  gamma <- 131 * 2^-24 / (1 - 131 * 2^-24) + (ncol(X) %/% 128 + 8) * 2^-53
  exp(2 * gamma * (max(xn) + max(yn)) / (2 * sigma^2)) * (1 + 2^-40) * (1 + 2^-23) - 1
}

# Greedy's picks on W up to (not including) the first round whose best two
# gains lie within the rounding of what they are made of: each similarity
# and coverage read up to `inflation` of itself high moves a gain
# sum_i a_i (w_ij - m_i)+ by at most inflation sum_i a_i (w_ij + m_i) over
# the clients where w_ij > m_i - inflation (w_ij + m_i) (elsewhere both
# read 0); there single precision may choose either.
picks_before_tie <- function(W, k, inflation, weights = rep(1, nrow(W)), initial = integer()) {
  cover <- if (length(initial)) apply(W[, initial, drop = FALSE], 1, max) else rep(0, nrow(W))
  open <- rep(TRUE, ncol(W))
  open[initial] <- FALSE
  picks <- integer()
  for (round in seq_len(k)) {
    g <- ref_gains(W, cover, weights)
    g[!open] <- -Inf
    best <- order(g, decreasing = TRUE)[1:2]
    reach <- max(vapply(best, function(j) {
      moved <- W[, j] + cover
      inflation * sum((weights * moved)[W[, j] > cover - inflation * moved])
    }, 0))
    if (g[best[1]] - g[best[2]] <= 2 * reach) break
    j <- which.max(g)
    picks <- c(picks, j)
    open[j] <- FALSE
    cover <- pmax(cover, W[, j])
  }
  picks
}

precision_cases <- function() {
  set.seed(57)
  Xc <- rbind(matrix(rnorm(120, sd = 0.3), 60), matrix(rnorm(80, 3), 40))
  list(
    iris = list(X = as.matrix(iris[1:4]), k = 12),
    quakes = list(X = as.matrix(quakes[c("long", "lat")])[1:300, ], k = 20),
    faithful_wide = list(X = as.matrix(faithful), k = 8, sigma_scale = 2),
    weighted = list(X = Xc, k = 6, weights = runif(100, 0.5, 2), initial = c(4L, 70L)),
    apart = list(X = Xc, k = 5, candidates = Xc[seq(1, 100, by = 3), ] + 0.1),
    # blobs of 8 to 64 points: every pick's gain well apart from the next best
    blobs = list(X = do.call(rbind, lapply(1:8, function(b) {
      matrix(rnorm(16 * b, sd = 0.2), 8 * b) + rep(c(3 * b, 5 * (b %% 3)), each = 8 * b)
    })), k = 8))
}

test_that("single precision picks greedy's picks up to the first near-tie, in every exact mode", {
  checked <- 0L
  for (case in precision_cases()) {
    sigma <- facility_sigma(case$X) * (if (is.null(case$sigma_scale)) 1 else case$sigma_scale)
    Y <- if (is.null(case$candidates)) case$X else case$candidates
    W <- ref_similarity(case$X, Y, sigma = sigma)
    w <- if (is.null(case$weights)) rep(1, nrow(W)) else case$weights
    initial <- if (is.null(case$initial)) integer() else case$initial
    sure <- picks_before_tie(W, case$k, single_inflation(case$X, Y, sigma), w, initial)
    for (mode in facility_modes("exact")) {
      fit <- facility_greedy(case$X, case$k, mode = mode, sigma = sigma, threads = 2,
                             candidates = case$candidates, weights = case$weights,
                             initial = case$initial, control = single)
      expect_identical(fit$selected[seq_along(sure)], sure)
      # f(S) in double precision, whatever the matrix's precision
      expect_equal(fit$objective, ref_objective(W, c(initial, fit$selected), w),
                   tolerance = 1e-12)
      expect_gte(fit$bound, fit$objective)
      checked <- checked + length(sure)
    }
  }
  expect_gt(checked, 3 * 15)   # the cases decide a share of the picks
})

test_that("with the same picks, single and double precision report the same f(S) bits", {
  X <- as.matrix(iris[1:4])
  d <- facility_greedy(X, 10, mode = "dc", threads = 1)
  s <- facility_greedy(X, 10, mode = "dc", threads = 1, control = single)
  expect_identical(s$selected, d$selected)
  expect_identical(s$objective, d$objective)
  expect_equal(s$gains, d$gains, tolerance = 1e-4)
  expect_identical(c(s$precision, d$precision), c("single", "double"))
  expect_output(print(s), "mode \"dc\", 1 thread, single-precision matrix", fixed = TRUE)
  expect_output(print(summary(s)), "single-precision matrix", fixed = TRUE)
  # nothing to hold in single precision: a given similarity, a matrix-free mode
  W <- ref_similarity(X, sigma = d$sigma)
  expect_identical(facility_greedy(similarity = W, k = 3, mode = "dc", control = single)$precision,
                   "double")
  expect_identical(facility_greedy(X, 3, mode = "nhpc", threads = 1, control = single)$precision,
                   "double")
})

test_that("every bound of a single-precision solve bounds the true optimum", {
  set.seed(23)
  for (trial in 1:24) {
    n <- sample(6:11, 1)
    X <- matrix(rnorm(2 * n), n)
    k <- sample(2:3, 1)
    sigma <- facility_sigma(X) * c(0.25, 1, 4)[trial %% 3 + 1]
    weights <- if (trial %% 2) runif(n, 0.2, 3) else NULL
    initial <- if (trial %% 4 == 0) 1L else NULL
    w <- if (is.null(weights)) rep(1, n) else weights
    W <- ref_similarity(X, sigma = sigma)
    opt <- ref_optimum(W, k, w, if (is.null(initial)) integer() else initial)
    for (mode in facility_modes("exact")) {
      fit <- facility_greedy(X, k, mode = mode, sigma = sigma, threads = 1, weights = weights,
                             initial = initial, control = facility_control(precision = "single",
                                                                           certify = 20))
      expect_gte(fit$bound, opt * (1 - 1e-12))
      expect_gte(fit$bound_online, opt * (1 - 1e-12))
      expect_gte(fit$bound_dual, opt * (1 - 1e-12))
      expect_lte(fit$objective, opt * (1 + 1e-12))
    }
    b <- facility_bound(X, fit, k = k, control = facility_control(precision = "single"))
    expect_gte(b$bound, opt * (1 - 1e-12))
    expect_equal(b$objective, fit$objective, tolerance = 1e-12)
  }
})

test_that("in hundreds of dimensions (several float slices) the bound still holds", {
  set.seed(31)
  for (d in c(300L, 700L)) {
    # points far from the origin and close together: the norms about the
    # clients' mean, not about 0, must carry the error bound
    X <- matrix(rnorm(24 * d, sd = 0.05), 24) + rep(runif(d, 50, 60), each = 24)
    sigma <- facility_sigma(X) * 0.5
    W <- ref_similarity(X, sigma = sigma)
    opt <- ref_optimum(W, 2)
    for (mode in facility_modes("exact")) {
      fit <- facility_greedy(X, 2, mode = mode, sigma = sigma, threads = 2,
                             control = facility_control(precision = "single", certify = 10))
      expect_gte(fit$bound, opt * (1 - 1e-12))
      expect_equal(fit$objective, ref_objective(W, fit$selected), tolerance = 1e-10)
      expect_gte(fit$bound_dual, opt * (1 - 1e-12))
    }
  }
})

test_that("single precision halves the matrix's memory and fits where double is refused", {
  set.seed(5)
  X <- matrix(rnorm(600), 300)
  bytes <- function(control, mode = "c") {
    .Call(C_facloc_solve_bytes, facility_problem(X, 1),
          solver_control(control, mode, 5L, 1L, FALSE))
  }
  double_need <- bytes(facility_control())
  single_need <- bytes(single)
  expect_lt(single_need, double_need - 3.9 * 300 * 300)
  expect_gt(single_need, 4 * 300 * 300)
  err <- with_memory_limit(single_need, expect_error(
    facility_greedy(X, 5, mode = "c", sigma = 1, threads = 1), class = "facloc_error_memory"))
  fit <- with_memory_limit(single_need, facility_greedy(X, 5, mode = "c", sigma = 1,
                                                        threads = 1, control = single))
  expect_length(fit$selected, 5)
  # "dc" there computes its gains from the points instead (test-stream.R)
  expect_true(with_memory_limit(single_need, facility_greedy(X, 5, mode = "dc", sigma = 1,
                                                             threads = 1))$streamed)
  # the matrix-free modes hold no matrix: the same need and the same answer
  expect_identical(bytes(single, "nhpc"), bytes(facility_control(), "nhpc"))
  expect_identical(facility_greedy(X, 5, mode = "hpc", sigma = 1, threads = 1, control = single)[c("selected", "objective", "bound")],
                   facility_greedy(X, 5, mode = "hpc", sigma = 1, threads = 1)[c("selected", "objective", "bound")])
})

test_that("precision must be one of its two values, named in the error", {
  err <- expect_error(facility_control(precision = "half"), class = "facloc_error_argument")
  expect_match(conditionMessage(err), "`precision`.*\"double\", \"single\"")
  expect_output(print(single), "precision = single")
})
