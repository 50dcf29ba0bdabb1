test_that("facility_objective() matches the plain-R objective", {
  set.seed(11)
  X <- matrix(rnorm(40 * 3), 40, 3)
  W <- ref_similarity(X, sigma = 2)
  S <- c(4, 17, 30)
  expect_equal(facility_objective(X, S, sigma = 2), ref_objective(W, S), tolerance = 1e-12)
  expect_equal(facility_objective(similarity = W, selected = S), ref_objective(W, S),
               tolerance = 1e-12)
  expect_equal(facility_objective(X, integer(), sigma = 2), 0)
  w <- runif(40)
  expect_equal(facility_objective(X, S, sigma = 2, weights = w, threads = 2),
               ref_objective(W, S, w), tolerance = 1e-12)
})

test_that("facility_objective() agrees with the solver's objective", {
  case <- exact_cases()$gaussian
  fit <- facility_greedy(case$X, case$k, mode = "g", sigma = case$sigma)
  expect_equal(facility_objective(case$X, fit$selected, sigma = case$sigma), fit$objective)
})
