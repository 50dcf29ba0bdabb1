# Review findings on the print, summary, plot and predict methods and on
# the benchmark tables.

review_points <- function(n = 60) {
  set.seed(7)
  matrix(rnorm(n * 2), ncol = 2)
}

expect_argument_error <- function(expr, arg, pattern) {
  err <- expect_error(expr, class = "facloc_error_argument")
  expect_identical(err$arg, arg)
  expect_match(conditionMessage(err), pattern)
  invisible(err)
}

test_that("plot() of a facility_greedy fit copes with an infinite or NA bound", {
  X <- review_points()
  pdf(NULL)
  on.exit(dev.off())
  stochastic <- facility_greedy(X, k = 3, sigma = 1, mode = "stochastic", threads = 1)
  expect_false(is.finite(stochastic$bound))
  expect_silent(plot(stochastic))
  skip_if_not(can_start_cluster(), "cannot start a local PSOCK cluster")
  greedi <- facility_greedy(X, k = 4, sigma = 1, cl = 2, threads = 1)
  expect_true(is.na(greedi$bound))
  expect_silent(plot(greedi))
})

test_that("plot() of a budget fit without picks draws its start", {
  X <- review_points()
  fit <- facility_greedy(X, k = 3, sigma = 1, mode = "dc", budget = 0.5, threads = 1)
  expect_length(fit$selected, 0L)
  pdf(NULL)
  on.exit(dev.off())
  expect_silent(plot(fit))
  # both panels span |S| from 0 to 1
  expect_equal(par("usr")[1:2], c(0, 1) + c(-0.04, 0.04))
})

test_that("graphical parameters override the plot methods' own", {
  X <- review_points()
  pdf(NULL)
  on.exit(dev.off())
  fit <- facility_greedy(X, k = 3, sigma = 1, mode = "dc", threads = 1)
  expect_identical(plot(fit, main = "mine"), fit)
  plot(fit, ylim = c(0, 200))
  expect_equal(par("usr")[3:4], c(0, 200) + c(-8, 8))
  occ <- dpmeans(X, lambda = 2, threads = 1)
  expect_identical(plot(occ, main = "mine"), occ)
  expect_identical(plot(occ, col = "blue"), occ)
  plot(occ, xlim = c(0, 50))
  expect_equal(par("usr")[1:2], c(0, 50) + c(-2, 2))
  bench <- data.frame(preset = "small", mode = "dc", threads = c(1, 1, 2, 2),
                      seconds = c(2, 2.2, 1.1, 1.2), quality = 1)
  class(bench) <- c("facility_benchmark", "data.frame")
  expect_identical(plot(bench, main = "mine"), bench)
  plot(bench, ylim = c(0, 4))
  expect_equal(par("usr")[3:4], c(0, 4) + c(-0.16, 0.16))
})

test_that("print and summary of a budget fit show budget, spent and rule", {
  X <- review_points()
  set.seed(3)
  cost <- runif(nrow(X), 0.5, 1.5)
  fit <- facility_greedy(X, sigma = 1, mode = "dc", budget = 2.5, cost = cost, threads = 1)
  expect_output(print(fit), sprintf("budget = 2.5, spent %.6g \\(%s rule\\)", fit$spent, fit$rule))
  s <- summary(fit)
  expect_identical(s[c("budget", "spent", "rule")], fit[c("budget", "spent", "rule")])
  expect_output(print(s), sprintf("Budget: 2.5  spent: %.6g  rule: %s", fit$spent, fit$rule))
  plain <- facility_greedy(X, k = 3, sigma = 1, mode = "dc", threads = 1)
  expect_null(summary(plain)$budget)
  expect_false(any(grepl("budget", capture.output(print(plain), print(summary(plain))),
                         ignore.case = TRUE)))
})

test_that("predict() on a similarity-only fit names `newdata` in its errors", {
  X <- review_points()
  S <- exp(-as.matrix(stats::dist(X))^2 / 2)
  fit <- facility_greedy(similarity = S, k = 3, mode = "dc", threads = 1)
  expect_argument_error(predict(fit, -S), "newdata", "^`newdata` must be non-negative$")
  bad <- S
  bad[1, 1] <- NA
  expect_argument_error(predict(fit, bad), "newdata", "^`newdata` must not contain NA")
  expect_argument_error(predict(fit, "S"), "newdata", "^`newdata` must be a numeric matrix")
  skip_if_not_installed("Matrix")
  expect_argument_error(predict(fit, Matrix::Matrix(-S, sparse = TRUE)), "newdata",
                        "^`newdata` must be non-negative$")
})

test_that("predict() of an OCC fit requires newdata and rejects unknown arguments", {
  X <- review_points()
  fit <- dpmeans(X, lambda = 2, threads = 1)
  expect_argument_error(predict(fit), "newdata", "newdata")
  expect_argument_error(predict(fit, X, foo = 1), "foo", "not an argument")
  expect_identical(predict(fit, X, threads = 1), predict(fit, X))
})

test_that("scaling_table() rejects an unknown `value` with a classed error", {
  bench <- data.frame(preset = "small", mode = "dc", threads = c(1, 2),
                      seconds = c(2, 1), quality = 1)
  expect_argument_error(scaling_table(bench, value = "foo"), "value", "\"speedup\", \"seconds\"")
  expect_argument_error(scaling_table(bench, value = c("seconds", "speedup")), "value", "one of")
  expect_identical(attr(scaling_table(bench), "value"), "speedup")
  expect_equal(scaling_table(bench, value = "seconds")[["2T"]], 1)
})

test_that("speedups from or to a time of 0 are NA, not NaN, Inf or 0", {
  bench <- data.frame(preset = "small",
                      mode = rep(c("dc", "nhpc", "hpc"), each = 3),
                      threads = rep(c(1, 2, 4), 3),
                      seconds = c(0, 0, 0.5,  0.4, 0, 0.1,  1, 0.5, 0.25),
                      quality = 1)
  tab <- scaling_table(bench)
  speedups <- as.matrix(tab[c("1T", "2T", "4T")])
  expect_false(any(is.nan(speedups) | is.infinite(speedups)))
  expect_equal(unname(speedups[tab$mode == "dc", ]), rep(NA_real_, 3))
  expect_equal(unname(speedups[tab$mode == "nhpc", ]), c(1, NA, 4))
  expect_equal(unname(speedups[tab$mode == "hpc", ]), c(1, 2, 4))
  # the times themselves stay as measured
  expect_equal(unname(as.matrix(scaling_table(bench, value = "seconds")[tab$mode == "dc", c("1T", "2T", "4T")]))[1, ],
               c(0, 0, 0.5))
})

test_that("read_benchmark() rejects a CSV without a benchmark's columns", {
  file <- tempfile(fileext = ".csv")
  on.exit(unlink(file))
  utils::write.csv(data.frame(a = 1:2, b = 3:4), file, row.names = FALSE)
  err <- expect_argument_error(read_benchmark(file), "file", "missing preset, mode, threads")
  utils::write.csv(data.frame(preset = "small", mode = "dc", threads = 1, seconds = 2),
                   file, row.names = FALSE)
  expect_argument_error(read_benchmark(file), "file", "missing quality$")
  # an older file without the newer columns still reads, those as NA
  utils::write.csv(data.frame(preset = "small", mode = "dc", threads = 1:2,
                              seconds = c(2, 1), quality = 1), file, row.names = FALSE)
  bench <- read_benchmark(file)
  expect_s3_class(bench, "facility_benchmark")
  expect_true(all(is.na(bench$peak_bytes)))
  expect_equal(scaling_table(bench)[["2T"]], 2)
})
