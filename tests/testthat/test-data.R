# Presets of the benchmark suites: shape, reproducibility, and that greedy
# has real work to do on every one (checked on reduced n to stay fast).

test_that("facility_presets() describes twelve presets in four suites", {
  p <- facility_presets()
  expect_s3_class(p, "data.frame")
  expect_identical(nrow(p), 12L)
  expect_named(p, c("suite", "name", "n", "d", "clusters", "center_sd", "spread",
                    "skew", "spread_power", "k", "share", "gain_ratio"))
  expect_identical(as.vector(table(p$suite)[c("size", "clustering", "skew", "density")]),
                   rep(3L, 4))
  expect_false(anyDuplicated(p$name) > 0)
  expect_identical(p$n[p$suite == "size"], c(4000L, 12000L, 30000L))
  expect_true(all(p$d == 32L & p$k == 100L))
  expect_true(all(p$share > 0.15 & p$share < 0.6))
  expect_true(all(p$gain_ratio >= 0.02))
  expect_type(p$center_sd, "double")
  expect_type(p$n, "integer")
})

test_that("facility_data() returns the requested shape with cluster labels", {
  X <- facility_data("mild_skew", n = 300)
  expect_true(is.matrix(X) && is.double(X))
  expect_identical(dim(X), c(300L, 32L))
  expect_identical(attr(X, "preset"), "mild_skew")
  cl <- attr(X, "cluster")
  expect_length(cl, 300L)
  expect_true(all(cl >= 1 & cl <= 128))
  # cluster sizes are exact shares of n, largest first under skew
  p <- facility_presets()[facility_presets()$name == "mild_skew", ]
  prob <- (1:128)^-p$skew / sum((1:128)^-p$skew)
  sizes <- tabulate(cl, 128)
  expect_identical(sum(sizes), 300L)
  expect_true(all(abs(sizes - 300 * prob) < 1))
  expect_identical(dim(facility_data("small", n = 20, d = 3)), c(20L, 3L))
  expect_identical(nrow(facility_data("small")), 4000L)
})

test_that("facility_data() is reproducible and leaves the caller's RNG alone", {
  a <- facility_data("heavy_skew", n = 50, d = 4, seed = 7)
  expect_identical(a, facility_data("heavy_skew", n = 50, d = 4, seed = 7))
  expect_false(isTRUE(all.equal(a, facility_data("heavy_skew", n = 50, d = 4, seed = 8))))
  # fixed values: Mersenne-Twister + Inversion give these on every platform
  expect_equal(sum(a), 796.874858580598, tolerance = 1e-10)
  expect_equal(sum(a^2), 327299.373176607420, tolerance = 1e-10)
  expect_identical(tabulate(attr(a, "cluster"), 5), c(11L, 5L, 4L, 3L, 2L))

  set.seed(11)
  expected <- runif(3)
  set.seed(11)
  facility_data("small", n = 10)
  expect_identical(runif(3), expected)

  old <- RNGkind()
  on.exit(suppressWarnings(RNGkind(old[1], old[2], old[3])), add = TRUE)
  suppressWarnings(RNGkind("L'Ecuyer-CMRG", "Box-Muller", "Rounding"))
  set.seed(3)
  b <- facility_data("heavy_skew", n = 50, d = 4, seed = 7)
  expect_identical(b, a)
  expect_identical(RNGkind(), c("L'Ecuyer-CMRG", "Box-Muller", "Rounding"))
})

test_that("a smaller n samples the same mixture", {
  # the centres come first in the stream, so cluster means agree
  big <- facility_data("strong_cluster", n = 2000, d = 8)
  small <- facility_data("strong_cluster", n = 600, d = 8)
  mean_of <- function(X, j) colMeans(X[attr(X, "cluster") == j, , drop = FALSE])
  same <- sqrt(sum((mean_of(big, 1) - mean_of(small, 1))^2))
  other <- sqrt(sum((mean_of(big, 1) - mean_of(big, 2))^2))
  expect_lt(same, other / 5)
})

test_that("greedy works for its answer on every preset (reduced n)", {
  p <- facility_presets()
  for (i in seq_len(nrow(p))) {
    X <- facility_data(p$name[i], n = 1500)
    fit <- facility_greedy(X, k = p$k[i], mode = "dc", threads = 1, sigma = 20)
    share <- fit$objective / nrow(X)
    ratio <- fit$gains[p$k[i]] / fit$gains[1]
    expect_gt(share, 0.15, label = p$name[i])
    expect_lt(share, 0.6, label = p$name[i])
    expect_gte(ratio, 0.02, label = p$name[i])
    # close to the full-size measurement recorded in the table
    expect_lt(abs(share - p$share[i]), 0.04, label = p$name[i])
    expect_lt(fit$objective / fit$bound, 0.99, label = p$name[i])
  }
})

test_that("facility_data() rejects bad arguments with classed errors", {
  expect_error(facility_data("huge"), class = "facloc_error_argument")
  expect_error(facility_data(c("small", "large")), class = "facloc_error_argument")
  expect_error(facility_data(3), class = "facloc_error_argument")
  expect_error(facility_data("small", n = 0), class = "facloc_error_argument")
  expect_error(facility_data("small", n = 2.5), class = "facloc_error_argument")
  expect_error(facility_data("small", d = 0), class = "facloc_error_argument")
  expect_error(facility_data("small", seed = NA), class = "facloc_error_argument")
  err <- expect_error(facility_data("huge"), class = "facloc_error_argument")
  expect_identical(err$arg, "preset")
})
