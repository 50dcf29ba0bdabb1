# Every bad input named by the facility_greedy() contract gets a classed error
# whose message names the argument.

X <- matrix(rnorm(20 * 2), 20, 2)

test_that("bad X is rejected", {
  expect_arg_error(facility_greedy("a", 2, mode = "g"), "X")
  expect_arg_error(facility_greedy(matrix(numeric(), 0, 2), 1, mode = "g"), "X")
  expect_arg_error(facility_greedy(matrix(numeric(), 3, 0), 1, mode = "g"), "X")
  bad <- X
  bad[3, 1] <- NA
  expect_arg_error(facility_greedy(bad, 2, mode = "g"), "X")
  bad[3, 1] <- NaN
  expect_arg_error(facility_greedy(bad, 2, mode = "g"), "X")
  bad[3, 1] <- Inf
  expect_arg_error(facility_greedy(bad, 2, mode = "g"), "X")
  expect_arg_error(facility_greedy(data.frame(a = 1:3, b = letters[1:3]), 1, mode = "g"), "X")
  expect_arg_error(facility_greedy(k = 2, mode = "g"), "X")
})

test_that("bad k, sigma, threads and mode are rejected", {
  expect_arg_error(facility_greedy(X, 0, mode = "g"), "k")
  expect_arg_error(facility_greedy(X, 21, mode = "g"), "k")
  expect_arg_error(facility_greedy(X, 2.5, mode = "g"), "k")
  expect_arg_error(facility_greedy(X, NA, mode = "g"), "k")
  expect_arg_error(facility_greedy(X, "3", mode = "g"), "k")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = 0), "sigma")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = -1), "sigma")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = Inf), "sigma")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = c(1, 2)), "sigma")
  expect_arg_error(facility_greedy(X, 2, mode = "g", threads = 0), "threads")
  expect_arg_error(facility_greedy(X, 2, mode = "g", threads = 1.5), "threads")
  expect_arg_error(facility_greedy(X, 2, mode = "g", threads = NA), "threads")
  expect_arg_error(facility_greedy(X, 2, mode = "greedy"), "mode")
  expect_arg_error(facility_greedy(X, 2, mode = c("g", "c")), "mode")
  expect_arg_error(facility_greedy(X, 2, mode = "g", verbose = NA), "verbose")
  expect_arg_error(facility_greedy(X, 2, mode = "g", control = list()), "control")
  expect_arg_error(facility_greedy(X, 2, mode = "g", bogus = 1), "bogus")
})

test_that("bad similarity matrices are rejected", {
  W <- exp(-as.matrix(dist(X))^2 / 2)
  expect_arg_error(facility_greedy(X, similarity = W[, -1], k = 2, mode = "g"), "similarity")
  neg <- W
  neg[2, 3] <- -0.1
  expect_arg_error(facility_greedy(similarity = neg, k = 2, mode = "g"), "similarity")
  nonfinite <- W
  nonfinite[1, 1] <- NaN
  expect_arg_error(facility_greedy(similarity = nonfinite, k = 2, mode = "g"), "similarity")
  expect_arg_error(facility_greedy(X[-1, ], similarity = W, k = 2, mode = "g"), "similarity")
  expect_arg_error(facility_greedy(similarity = "W", k = 2, mode = "g"), "similarity")
  expect_arg_error(facility_greedy(similarity = W, k = 2, mode = "hpc"), "mode")
})

test_that("bad selected sets are rejected by facility_objective()", {
  expect_arg_error(facility_objective(X, c(1, 21)), "selected")
  expect_arg_error(facility_objective(X, c(0, 2)), "selected")
  expect_arg_error(facility_objective(X, c(2, 2)), "selected")
  expect_arg_error(facility_objective(X, c(1.5)), "selected")
  expect_arg_error(facility_objective(X, NA), "selected")
})

test_that("bad weights, candidates and initial sets are rejected", {
  expect_arg_error(facility_greedy(X, 2, mode = "g", weights = rep(1, 3)), "weights")
  expect_arg_error(facility_greedy(X, 2, mode = "g", weights = c(-1, rep(1, 19))), "weights")
  expect_arg_error(facility_greedy(X, 2, mode = "g", candidates = matrix(1, 3, 3)), "candidates")
  expect_arg_error(facility_greedy(X, 2, mode = "g", initial = 25), "initial")
  expect_arg_error(facility_greedy(X, 20, mode = "g", initial = 1), "k")
})

test_that("the n x n matrix is refused above the memory limit, before allocating", {
  old <- options(facloc.memory_limit = 1000)
  on.exit(options(old))
  err <- expect_error(facility_greedy(X, 2, mode = "g"), class = "facloc_error_memory")
  expect_match(conditionMessage(err), "matrix-free")
  expect_gt(err$bytes, 1000)
  options(facloc.memory_limit = -1)
  expect_error(facloc_memory_limit(), class = "facloc_error_argument")
})

test_that("thread control is one package-wide setting", {
  old <- facloc_threads(1)
  on.exit(facloc_threads(old))
  expect_identical(facloc_threads(), 1L)
  fit <- facility_greedy(X, 2, mode = "dc", sigma = 1)
  expect_identical(fit$threads, 1L)
  facloc_threads(NULL)
  expect_gte(facloc_threads(), 1L)
  expect_lte(facloc_threads(), 2L)   # R CMD check and CRAN: two cores at most
  expect_arg_error(facloc_threads(0), "n")
})

test_that("errors carry the user's call and say what to do", {
  err <- expect_arg_error(facility_greedy(X, k = 500, mode = "g"), "k", "coverage =")
  expect_user_call(err, "facility_greedy")
  expect_match(conditionMessage(err), "between 1 and 20, not 500", fixed = TRUE)
  expect_user_call(expect_arg_error(facility_greedy(X, 2.5), "k", "coverage ="),
                   "facility_greedy")
  expect_user_call(expect_arg_error(facility_greedy(X), "k", "is missing.*coverage ="),
                   "facility_greedy")
  # no machine integer limit in the message
  err <- expect_arg_error(facility_greedy(X, 2, threads = 0), "threads", "at least 1, not 0")
  expect_no_match(conditionMessage(err), "2147483647", fixed = TRUE)
  expect_no_match(conditionMessage(expect_arg_error(facility_control(seed = 3e9), "seed")),
                  "2147483647", fixed = TRUE)
  # a facloc call inside another's argument keeps its own call
  expect_user_call(expect_arg_error(facility_greedy(X, 2, control = facility_control(eps = 2)),
                                    "eps"), "facility_control")
  expect_user_call(expect_arg_error(facility_objective(X, 30), "selected"), "facility_objective")
  expect_user_call(expect_arg_error(facloc_threads(0), "n"), "facloc_threads")
  expect_user_call(expect_arg_error(dpmeans(X, lambda = -1), "lambda"), "dpmeans")
  fit <- facility_greedy(X, 2, mode = "g", threads = 1)
  expect_user_call(expect_arg_error(predict(fit, "a"), "newdata"), "predict.facility_greedy")
  # called through lapply() by the user: still the user's call
  err <- tryCatch(lapply(1, function(i) facility_greedy(X, k = 0)), error = identity)
  expect_user_call(err, "facility_greedy")
  # the message R prints names the call
  expect_match(tryCatch(facility_greedy(X, k = 0), error = function(e) format(conditionCall(e))),
               "^facility_greedy\\(X, k = 0\\)")
})
