# The default kernel width: the median heuristic of facility_sigma(),
# against the plain-R median of pairwise distances (helper-reference.R).

test_that("the default sigma is the median pairwise distance, stated in the result", {
  set.seed(5)
  X <- matrix(rnorm(90 * 3, sd = 4), 90, 3)
  width <- ref_median_width(X)
  expect_equal(facility_sigma(X), width, tolerance = 1e-12)
  for (mode in facility_modes()) {
    fit <- facility_greedy(X, 4, mode = mode, threads = 1)
    expect_equal(fit$sigma, width, tolerance = 1e-12)
    expect_identical(fit$sigma_rule, "median heuristic")
  }
  given <- facility_greedy(X, 4, mode = "g", sigma = 2, threads = 1)
  expect_identical(given$sigma, 2)
  expect_identical(given$sigma_rule, "given")
  expect_output(print(fit), sprintf("sigma = %.4g (median heuristic)", width), fixed = TRUE)
  expect_output(print(summary(fit)), "Kernel width: sigma = .* \\(median heuristic\\)")
  expect_output(print(given), "sigma = 2 (given)", fixed = TRUE)
})

test_that("the default picks are those of plain-R greedy with that sigma", {
  set.seed(6)
  X <- matrix(rnorm(70 * 2), 70, 2)
  ref <- ref_greedy(ref_similarity(X, sigma = ref_median_width(X)), 6)
  for (mode in facility_modes("exact")) for (threads in 1:2)
    expect_greedy(facility_greedy(X, 6, mode = mode, threads = threads), ref,
                  label = sprintf("%s, %d threads", mode, threads))
  fit <- facility_greedy(X, 6, mode = "dc", threads = 1)
  expect_equal(facility_objective(X, fit$selected, threads = 1), fit$objective,
               tolerance = 1e-12)
})

test_that("above `rows` rows the median is taken on the seeded sample, RNG untouched", {
  set.seed(8)
  X <- matrix(runif(400 * 2), 400, 2)
  expect_equal(facility_sigma(X, rows = 60), ref_median_width(X, rows = 60), tolerance = 1e-12)
  expect_equal(facility_sigma(X, rows = 60, seed = 3), ref_median_width(X, rows = 60, seed = 3),
               tolerance = 1e-12)
  expect_false(isTRUE(all.equal(facility_sigma(X, rows = 60), facility_sigma(X, rows = 60, seed = 3))))
  big <- matrix(rnorm(2600 * 2), 2600, 2)
  expect_equal(facility_sigma(big), ref_median_width(big), tolerance = 1e-12)

  set.seed(1234)
  before <- .Random.seed
  kinds <- RNGkind()
  RNGkind("L'Ecuyer-CMRG")
  set.seed(99)
  lecuyer <- .Random.seed
  first <- facility_sigma(X, rows = 60)
  expect_identical(.Random.seed, lecuyer)
  expect_identical(RNGkind()[1], "L'Ecuyer-CMRG")
  RNGkind(kinds[1], kinds[2], kinds[3])
  set.seed(1234)
  expect_identical(facility_sigma(X, rows = 60), first)
  expect_identical(.Random.seed, before)
})

test_that("scaling X by 1000 scales sigma by 1000 and keeps the picks", {
  set.seed(9)
  X <- matrix(rnorm(200 * 3), 200, 3)
  for (mode in c("dc", "nhpc")) {
    fit <- facility_greedy(X, 8, mode = mode, threads = 1)
    big <- facility_greedy(1000 * X, 8, mode = mode, threads = 1)
    expect_equal(big$sigma, 1000 * fit$sigma, tolerance = 1e-12)
    expect_identical(big$selected, fit$selected)
    expect_equal(big$objective, fit$objective, tolerance = 1e-9)
  }
})

test_that("duplicate and identical rows give a usable width", {
  X <- rbind(matrix(0, 30, 2), c(3, 4), c(6, 8))
  # more than half the distances are 0: the median of the non-zero ones
  expect_equal(facility_sigma(X), stats::median(c(rep(5, 30), rep(10, 30), 5)))
  expect_identical(facility_sigma(matrix(1, 5, 2)), 1)
  expect_identical(facility_sigma(matrix(1, 1, 2)), 1)
  fit <- facility_greedy(matrix(1, 5, 2), 2, mode = "g", threads = 1)
  expect_identical(fit$sigma, 1)
})

test_that("knn_similarity() and facility_objective() default to the same width", {
  skip_if_not_installed("Matrix")
  set.seed(10)
  X <- matrix(rnorm(40 * 2), 40, 2)
  W <- ref_similarity(X, sigma = ref_median_width(X))
  S <- knn_similarity(X, k = 40, threads = 1)
  expect_equal(as.matrix(S), W, tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(facility_objective(X, c(3, 17), threads = 1), ref_objective(W, c(3, 17)),
               tolerance = 1e-12)
})

test_that("facility_sigma() validates its arguments", {
  X <- matrix(rnorm(20), 10, 2)
  expect_arg_error(facility_sigma(X, rows = 1), "rows")
  expect_arg_error(facility_sigma(X, rows = NA), "rows")
  expect_arg_error(facility_sigma(X, seed = 1.5), "seed")
  expect_arg_error(facility_sigma("a"), "X")
  expect_arg_error(facility_sigma(iris), "X", "Species")
  expect_arg_error(facility_sigma(X, threads = 0), "threads")
  expect_arg_error(facility_sigma(X, threads = "2"), "threads")
})

test_that("the width is the same on any number of threads", {
  # the panels of the sample are shared out to the threads, each distance
  # written to its own place: the width cannot depend on the count
  on.exit(facloc:::team_policy("auto"), add = TRUE)
  facloc:::team_policy("full")   # teams of the size asked for, however small
  set.seed(9)
  for (d in c(1, 7, 130)) {
    X <- matrix(rnorm(437 * d), ncol = d)
    one <- facility_sigma(X, threads = 1)
    expect_identical(facility_sigma(X, threads = 2), one)
    expect_identical(facility_sigma(X, threads = 3), one)
  }
  X <- facility_data("small")
  expect_identical(facility_sigma(X, threads = 2), facility_sigma(X, threads = 1))
})

# Data shipped with R, every default (sigma, mode): the picks are not
# degenerate, as under a fixed sigma = 20 (every similarity near 1 on iris).
test_that("the defaults give decreasing gains on iris, quakes and faithful", {
  data <- list(iris = iris[1:4], quakes = quakes[c("long", "lat")], faithful = faithful)
  for (name in names(data)) {
    fit <- facility_greedy(data[[name]], k = 20, threads = 1)
    expect_true(all(diff(fit$gains) <= 1e-12 * fit$gains[1]), label = name)
    expect_lt(fit$gains[1], 0.9 * nrow(data[[name]]))
    X <- as.matrix(data[[name]])
    expect_equal(fit$objective, ref_objective(ref_similarity(X, X, fit$sigma), fit$selected),
                 tolerance = 1e-10, label = name)
  }
})

test_that("the width is stats::median(dist()) of the sample, to the last bit", {
  # computed in C (kernel_sigma.c): the same sums and the same mean of the two
  # middle distances as R's, on odd and even counts, ties and repeated rows
  oracle <- function(X, rows = 2000, seed = 1) {
    X <- as.matrix(X)
    keep <- if (nrow(X) > rows) sort(facloc:::with_fixed_rng(seed, sample.int(nrow(X), rows)))
    d <- as.vector(stats::dist(if (is.null(keep)) X else X[keep, , drop = FALSE]))
    width <- stats::median(d)
    if (width == 0 && any(d > 0)) width <- stats::median(d[d > 0])
    if (width == 0) 1 else width
  }
  data_sets <- list(iris[1:4], quakes[c("long", "lat")], faithful["waiting"], mtcars,
                    matrix(1:40, 10), matrix(c(0, 3), 2, 1), matrix(rep(1:2, c(10, 3)), 13, 1))
  for (i in seq_along(data_sets))
    expect_identical(facility_sigma(data_sets[[i]]), oracle(data_sets[[i]]), label = i)
  set.seed(3)
  for (r in 1:200) {
    X <- matrix(round(rnorm(sample(2:40, 1) * 3) * 10^sample(-3:3, 1), sample(0:3, 1)), ncol = 3)
    rows <- sample(2:50, 1)
    expect_identical(facility_sigma(X, rows = rows, seed = r), oracle(X, rows, seed = r),
                     label = r)
  }
  # many coordinates (the distances run as 4 x 4 tiles, in AVX2 where the
  # CPU has it, or 8 x 8 in AVX-512): a sample of 2 or 3 rows makes one
  # pair's distance the width, so pair after pair is held to R's bits
  for (d in c(1, 5, 64, 384, 1031)) {
    X <- matrix(rnorm(40 * d), ncol = d)
    for (r in 1:15) {
      rows <- sample(2:9, 1)
      expect_identical(facility_sigma(X, rows = rows, seed = r), oracle(X, rows, seed = r),
                       label = paste(d, r))
    }
  }
  X <- matrix(rnorm(601 * 130), ncol = 130)
  expect_identical(facility_sigma(X), oracle(X))
})
