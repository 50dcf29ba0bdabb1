# Every bad input gets a classed error naming the argument.

expect_arg_error <- function(expr, arg) {
  err <- expect_error(expr, class = "facloc_error_argument")
  expect_identical(err$arg, arg)
  expect_match(conditionMessage(err), sprintf("`%s`", arg), fixed = TRUE)
}

test_that("bad inputs to dpmeans, ofl and bpmeans are named", {
  X <- dp_data(30, d = 2, seed = 1)$X
  bad_X <- X
  bad_X[2, 1] <- NA
  inf_X <- X
  inf_X[1, 1] <- Inf
  for (f in list(dpmeans, ofl, bpmeans)) {
    expect_arg_error(f(bad_X, 1), "X")
    expect_arg_error(f(inf_X, 1), "X")
    expect_arg_error(f(letters, 1), "X")
    expect_arg_error(f(data.frame(a = 1:3, b = letters[1:3]), 1), "X")
    expect_arg_error(f(X, 0), "lambda")
    expect_arg_error(f(X, -1), "lambda")
    expect_arg_error(f(X, Inf), "lambda")
    expect_arg_error(f(X, NA), "lambda")
    expect_arg_error(f(X, c(1, 2)), "lambda")
    expect_arg_error(f(X, "1"), "lambda")
    expect_arg_error(f(X, 1, threads = 0), "threads")
    expect_arg_error(f(X, 1, threads = 1.5), "threads")
    expect_arg_error(f(X, 1, batch = 0), "batch")
    expect_arg_error(f(X, 1, batch = "a"), "batch")
    expect_arg_error(f(X, 1, method = "fast"), "method")
    expect_arg_error(f(X, 1, seed = -1), "seed")
    expect_arg_error(f(X, 1, order = 1:30), "order")            # not serial
    expect_arg_error(f(X, 1, method = "serial", order = 1:29), "order")
    expect_arg_error(f(X, 1, method = "serial", order = rep(1, 30)), "order")
    expect_arg_error(f(X, 1, method = "serial", cl = 2), "cl")
    expect_arg_error(f(X, 1, cl = 0), "cl")
    expect_arg_error(f(X, 1, cl = "local"), "cl")
  }
  expect_arg_error(dpmeans(X, 1, max_iter = 0), "max_iter")
  expect_arg_error(bpmeans(X, 1, max_iter = NA), "max_iter")
})

test_that("bad inputs to the helpers are named", {
  fit <- dpmeans(dp_data(30, d = 2, seed = 1)$X, 2, threads = 1)
  expect_arg_error(predict(fit, matrix(0, 2, 3)), "newdata")
  expect_arg_error(predict(fit, matrix(NA_real_, 2, 2)), "newdata")
  expect_arg_error(predict(fit, matrix(0, 2, 2), threads = -1), "threads")
  expect_arg_error(serial_order(list()), "fit")
  expect_arg_error(dp_data(0), "n")
  expect_arg_error(dp_data(10, d = 0), "d")
  expect_arg_error(dp_data(10, theta = 0), "theta")
  expect_arg_error(bp_data(10, sd = -1), "sd")
  expect_arg_error(bp_data(10, seed = "a"), "seed")
  expect_arg_error(adjusted_rand_index(1:3, 1:2), "b")
})

test_that("memory requests above the limit are refused before running", {
  old <- options(facloc.memory_limit = 1000)
  on.exit(options(old))
  expect_error(dpmeans(dp_data(100, seed = 1)$X, 5), class = "facloc_error_memory")
})
