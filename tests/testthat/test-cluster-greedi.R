# facility_greedy(cl = ): GreeDi on a local PSOCK cluster of two workers.

cluster_ok <- can_start_cluster()

test_that("GreeDi is within its documented factor of single-machine greedy", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  set.seed(7)
  centers <- matrix(rnorm(12 * 4, sd = 4), 12, 4)
  X <- centers[sample(12, 600, replace = TRUE), ] + matrix(rnorm(600 * 4), 600, 4)
  single <- facility_greedy(X, 10, mode = "dc", sigma = 2, threads = 1)
  fit <- facility_greedy(X, 10, mode = "dc", sigma = 2, threads = 1, cl = cl)
  g <- fit$greedi
  expect_s3_class(fit, "facility_greedy")
  expect_length(fit$selected, 10)
  expect_false(anyDuplicated(fit$selected) > 0)
  # f(S) is measured on the full data, and is the better of the two answers
  expect_equal(fit$objective, facility_objective(X, fit$selected, sigma = 2))
  expect_equal(fit$objective, max(g$union_objective, g$part_objectives))
  expect_equal(sum(g$part_sizes), 600)
  # RandGreeDi's guarantee is (1 - 1/e)/2 of the optimum in expectation;
  # on clustered data like this it is within 5% of greedy (help page)
  expect_gte(fit$objective, (1 - exp(-1)) / 2 * single$objective)
  expect_gte(fit$objective, 0.95 * single$objective)
  # the same seed gives the same answer; the data went out once
  again <- facility_greedy(X, 10, mode = "dc", sigma = 2, threads = 1, cl = cl)
  expect_identical(again$selected, fit$selected)
  expect_gt(g$bytes_sent, 8 * length(X))
  # the work counts add up both stages: every part's first gains at least
  expect_gte(fit$evaluations, sum(g$part_sizes) + g$union_size)
  expect_gte(fit$pairs, 0)
})

test_that("GreeDi refuses the arguments it cannot honour", {
  X <- matrix(rnorm(40), 20, 2)
  err <- expect_error(facility_greedy(X, 2, cl = 2, initial = 1),
                      class = "facloc_error_unsupported")
  expect_match(conditionMessage(err), "`initial`")
  expect_error(facility_greedy(X, 2, cl = 2, candidates = X[1:5, ]),
               class = "facloc_error_unsupported")
  expect_error(facility_greedy(X, 2, cl = 0), class = "facloc_error_argument")
  expect_error(facility_greedy(X, 2, cl = "two"), class = "facloc_error_argument")
  expect_error(facility_greedy(X, 2, cl = 50), class = "facloc_error_argument")
  expect_error(facility_greedy(similarity = diag(3), k = 1, cl = 2),
               class = "facloc_error_unsupported")
  expect_error(facility_greedy(X, 2, cl = 2, verbose = TRUE), class = "facloc_error_unsupported")
  err <- expect_error(facility_greedy(X, 2, cl = 2, verbose = NA), class = "facloc_error_argument")
  expect_identical(err$arg, "verbose")
})
