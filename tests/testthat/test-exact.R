# The exact modes against the plain-R greedy oracle, element by element.

for (case_name in names(exact_cases())) {
  test_that(sprintf("g, c and dc equal plain-R greedy on points (%s)", case_name), {
    case <- exact_cases()[[case_name]]
    ref <- ref_greedy(ref_similarity(case$X, sigma = case$sigma), case$k)
    for (mode in facility_modes("exact")) for (threads in 1:2) {
      fit <- facility_greedy(case$X, case$k, mode = mode, threads = threads,
                             sigma = case$sigma)
      expect_greedy(fit, ref)
      expect_identical(fit$mode, mode)
    }
  })

  test_that(sprintf("g, c and dc equal plain-R greedy on a similarity matrix (%s)", case_name), {
    case <- exact_cases()[[case_name]]
    W <- ref_similarity(case$X, sigma = case$sigma)
    ref <- ref_greedy(W, case$k)
    for (mode in facility_modes("exact")) for (threads in 1:2) {
      fit <- facility_greedy(similarity = W, k = case$k, mode = mode, threads = threads)
      expect_greedy(fit, ref)
    }
  })
}

test_that("ties go to the lowest index", {
  case <- exact_cases()$ties
  fit <- facility_greedy(case$X, 4, mode = "dc", threads = 2, sigma = case$sigma)
  # every point has a twin 16 rows later with an identical column of W
  expect_true(all(fit$selected <= 16))
})

test_that("weights, candidates and initial facilities follow the reference", {
  set.seed(7)
  X <- matrix(rnorm(50 * 2), 50, 2)
  Y <- matrix(rnorm(30 * 2), 30, 2)
  w <- rexp(50)
  W <- ref_similarity(X, Y, sigma = 0.8)
  ref <- ref_greedy(W, 5, weights = w, initial = c(3L, 11L))
  for (mode in facility_modes("exact")) for (threads in 1:2) {
    fit <- facility_greedy(X, 5, mode = mode, threads = threads, sigma = 0.8,
                           candidates = Y, weights = w, initial = c(3, 11))
    expect_greedy(fit, ref)
    expect_identical(fit$initial, c(3L, 11L))
    expect_equal(fit$m, 30L)
  }
})

test_that("the bound is a true upper bound, checked by brute force", {
  set.seed(3)
  X <- matrix(rnorm(14 * 2), 14, 2)
  W <- ref_similarity(X, sigma = 0.7)
  for (k in 1:3) {
    opt <- ref_optimum(W, k)
    for (mode in facility_modes("exact")) {
      fit <- facility_greedy(X, k, mode = mode, sigma = 0.7, threads = 2)
      expect_gte(fit$bound, opt - 1e-12)
      expect_gte(opt, fit$objective - 1e-12)
    }
  }
})

test_that("k equal to the number of candidates selects them all", {
  X <- matrix(c(0, 1, 2, 10, 11), ncol = 1)
  fit <- facility_greedy(X, 5, mode = "c", sigma = 1, threads = 2)
  expect_setequal(fit$selected, 1:5)
  expect_equal(fit$objective, 5)
  expect_equal(fit$bound, 5)
})

test_that("results are reproducible across calls and thread counts", {
  case <- exact_cases()$wide
  fits <- lapply(c(1, 2, 2), function(t)
    facility_greedy(case$X, case$k, mode = "dc", threads = t, sigma = case$sigma))
  expect_identical(fits[[1]]$selected, fits[[2]]$selected)
  expect_identical(fits[[2]]$gains, fits[[3]]$gains)
})

test_that("few candidates split among the threads give the same bits", {
  # at d >= 128 a block holds 126 candidates: 120 of them are one block
  # at 1 thread and two of 60 at 2; the matrix, picks and bound must not
  # change, and the picks are the plain-R greedy's
  set.seed(11)
  X <- matrix(rnorm(2000 * 130), 2000, 130)
  Y <- X[sample(2000, 120), ]
  sigma <- facility_sigma(X)
  fits <- lapply(1:2, function(t)
    facility_greedy(X, 8, mode = "dc", threads = t, sigma = sigma, candidates = Y))
  expect_identical(fits[[1]][c("selected", "gains", "objective", "bound")],
                   fits[[2]][c("selected", "gains", "objective", "bound")])
  expect_greedy(fits[[2]], ref_greedy(ref_similarity(X, Y, sigma = sigma), 8))
})

test_that("gains summed over the kept live clients keep a whole column's bits", {
  # Under a narrow kernel few clients stay live for each candidate once some
  # facilities are open (a client is live for j while j would cover it
  # better than S does): their gains then read only the live clients kept
  # in a list, and must have the bits of the client-by-client sum of every
  # client (ref_gains), in every mode, with weights and initial facilities.
  # 403 clients: the lists are packed eight at a time where the CPU can,
  # and the last three one at a time
  set.seed(13)
  X <- matrix(runif(403 * 2), 403, 2)
  w <- rexp(403)
  W <- ref_similarity(X, sigma = 0.03)
  ref <- ref_greedy(W, 60, weights = w, initial = c(5L, 77L))
  for (mode in facility_modes("exact")) for (threads in 1:2) {
    fit <- facility_greedy(similarity = W, k = 60, mode = mode, threads = threads,
                           weights = w, initial = c(5, 77))
    expect_identical(fit$selected, ref$selected)
    expect_identical(fit$gains, ref$gains)
    expect_equal(fit$objective, ref_objective(W, c(5, 77, ref$selected), w), tolerance = 1e-12)
  }
})

test_that("the symmetric matrix computed in halves holds the whole fill's bits", {
  # candidates that are the clients themselves fill W once per pair and
  # mirror it; the same points given as separate candidates fill it whole.
  # Sizes straddle the blocks and the panels (n not a multiple of 6 or 32),
  # the last block shorter than the others
  set.seed(12)
  for (shape in list(c(37, 3), c(301, 7), c(700, 130))) {
    n <- shape[1]
    X <- matrix(rnorm(n * shape[2], sd = 2), n)
    U <- X / sqrt(rowSums(X^2))
    for (t in 1:2) {
      expect_identical(cosine_similarity(U, threads = t),
                       cosine_similarity(U, U + 0, threads = t))
      half <- facility_greedy(X, 12, mode = "g", threads = t)
      whole <- facility_greedy(X, 12, mode = "g", threads = t, candidates = X + 0)
      expect_identical(half[c("selected", "gains", "objective", "bound")],
                       whole[c("selected", "gains", "objective", "bound")])
      single <- facility_control(precision = "single")
      half <- facility_greedy(X, 12, mode = "dc", threads = t, control = single)
      whole <- facility_greedy(X, 12, mode = "dc", threads = t, candidates = X + 0,
                               control = single)
      expect_identical(half[c("selected", "gains", "objective", "bound")],
                       whole[c("selected", "gains", "objective", "bound")])
    }
  }
  S <- cosine_similarity(U, threads = 2)
  expect_identical(S, t(S))
  expect_equal(unname(S), pmax(tcrossprod(U), 0), tolerance = 1e-12)
})

test_that("evaluations count lazy work: CELF evaluates less than greedy", {
  case <- exact_cases()$wide
  g <- facility_greedy(case$X, case$k, mode = "g", threads = 1, sigma = case$sigma)
  c1 <- facility_greedy(case$X, case$k, mode = "c", threads = 1, sigma = case$sigma)
  n <- nrow(case$X)
  expect_equal(g$evaluations, sum(n - seq_len(case$k) + 1))
  expect_lt(c1$evaluations, g$evaluations)
  expect_gte(c1$evaluations, n)
})
