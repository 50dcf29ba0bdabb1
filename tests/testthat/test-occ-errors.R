# Every bad input gets a classed error naming the argument.

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

test_that("a lambda whose square overflows is refused by every OCC entry", {
  X <- dp_data(40, d = 2, seed = 1)$X
  for (f in list(dpmeans, ofl, bpmeans)) {
    expect_arg_error(f(X, 1e200), "lambda")
    expect_arg_error(f(X, 1e300, method = "serial"), "lambda")
    expect_arg_error(f(X, 1e200, cl = 2), "lambda")   # refused before starting workers
  }
  # the largest lambda whose square is finite still runs: one cluster
  big <- sqrt(.Machine$double.xmax) * (1 - 1e-15)
  fit <- dpmeans(X, big, threads = 1)
  expect_identical(fit$cluster, rep(1L, 40))
  expect_true(is.finite(fit$objective))
})

test_that("a cluster with more workers than rows is refused before it starts", {
  X <- dp_data(30, d = 2, seed = 2)$X
  local_facloc_binding("start_local_cluster", function(workers) stop("started workers"))
  for (f in list(dpmeans, ofl, bpmeans)) {
    expect_arg_error(f(X, 1, cl = 31), "cl")
    expect_arg_error(f(X, 1, cl = 1e10), "cl")
  }
})

test_that("counts beyond the integer range are named, not turned into NA", {
  X <- dp_data(30, d = 2, seed = 2)$X
  expect_arg_error(dpmeans(X, 1, threads = 1e10), "threads")
  expect_arg_error(dpmeans(X, 1, batch = 1e10), "batch")
  expect_arg_error(dpmeans(X, 1, max_iter = 1e10), "max_iter")
  expect_arg_error(bpmeans(X, 1, max_iter = 1e10), "max_iter")
})

test_that("adjusted_rand_index() names NA and non-vector labels", {
  expect_arg_error(adjusted_rand_index(c(1, NA, 2, 2), c(1, 1, 2, 2)), "a")
  expect_arg_error(adjusted_rand_index(c(1, 1, 2, 2), c("x", "x", NA, "y")), "b")
  expect_arg_error(adjusted_rand_index(c(1, 1, NaN, 2), c(1, 1, 2, 2)), "a")
  expect_arg_error(adjusted_rand_index(list(1, 1, 2, 2), c(1, 1, 2, 2)), "a")
  expect_arg_error(adjusted_rand_index(c(1, 1, 2, 2), data.frame(x = 1:4)), "b")
  expect_arg_error(adjusted_rand_index(NULL, 1:2), "a")
  expect_arg_error(adjusted_rand_index(b = 1:2), "a")
  expect_identical(adjusted_rand_index(factor(c("u", "u", "v")), c(3L, 3L, 1L)), 1)
})
