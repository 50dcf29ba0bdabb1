# Inputs a user has: data frames, `dist` objects; and the picks as a data
# frame.

set.seed(31)
X <- matrix(rnorm(50 * 3), 50, 3)
df <- as.data.frame(X)

test_that("a data frame of numeric columns gives what its matrix gives, in every mode", {
  for (mode in facility_modes()) for (threads in 1:2) {
    from_matrix <- facility_greedy(X, 5, mode = mode, threads = threads)
    from_df <- facility_greedy(df, 5, mode = mode, threads = threads)
    expect_greedy(from_df, from_matrix, label = sprintf("%s, %d threads", mode, threads),
                  tolerance = 0)
    expect_identical(from_df$sigma, from_matrix$sigma)
    expect_identical(from_df$bound, from_matrix$bound)
  }
  fit <- facility_greedy(df, 5, mode = "dc", threads = 1)
  expect_identical(facility_objective(df, fit$selected, threads = 1),
                   facility_objective(X, fit$selected, threads = 1))
  expect_identical(predict(fit, df), predict(fit, X))
  expect_identical(facility_greedy(X, 5, mode = "dc", threads = 1, candidates = df[1:20, ])$selected,
                   facility_greedy(X, 5, mode = "dc", threads = 1, candidates = X[1:20, ])$selected)
  integer_columns <- data.frame(a = c(1L, 4L, 9L, 2L), b = c(0L, 3L, 3L, 8L))
  expect_identical(facility_greedy(integer_columns, 2, mode = "g", threads = 1)$selected,
                   facility_greedy(as.matrix(integer_columns) + 0, 2, mode = "g", threads = 1)$selected)
})

test_that("factor and character columns are refused by name", {
  expect_arg_error(facility_greedy(iris, 3, mode = "dc"), "X", "Species")
  chr <- data.frame(a = 1:3, label = c("x", "y", "z"))
  expect_arg_error(facility_greedy(chr, 1, mode = "g"), "X", "label")
  expect_arg_error(facility_objective(chr, 1), "X", "label")
  expect_arg_error(facility_greedy(X, 2, mode = "dc", candidates = iris[1:5, c(1:2, 5)]),
                   "candidates", "Species")
})

test_that("a dist object is turned into the kernel similarity of its points", {
  D <- dist(X)
  width <- stats::median(as.vector(D))
  W <- exp(-as.matrix(D)^2 / (2 * width^2))
  dimnames(W) <- NULL
  ref <- ref_greedy(W, 6)
  for (mode in facility_modes(c("exact", "sampled"))) for (threads in 1:2) {
    fit <- facility_greedy(D, 6, mode = mode, threads = threads, control = greedy_control(mode))
    expect_greedy(fit, ref, label = sprintf("%s, %d threads", mode, threads))
    expect_equal(fit$sigma, width, tolerance = 1e-12)
    expect_identical(fit$source, "dist")
  }
  fit <- facility_greedy(D, 6, threads = 1)
  expect_identical(fit$mode, "dc")
  expect_null(fit$facilities)
  # the same answer as the points with the same width
  expect_greedy(fit, facility_greedy(X, 6, mode = "dc", threads = 1), tolerance = 1e-9)
  expect_equal(facility_greedy(D, 6, sigma = 2, threads = 1)$objective,
               ref_greedy(exp(-as.matrix(D)^2 / 8), 6)$objective, tolerance = 1e-12)
  # predict() on the dist assigns each point to its most similar facility
  expect_identical(predict(fit, D)$candidate, fit$selected[ref_assign(W, fit$selected)$index])
  expect_equal(fit$objective_all, 50)
})

test_that("a dist object is refused where it cannot serve", {
  D <- dist(X)
  expect_arg_error(facility_greedy(D, 3, mode = "nhpc"), "mode", "dist")
  expect_arg_error(facility_greedy(D, 3, similarity = diag(50)), "similarity")
  expect_arg_error(facility_greedy(D, 3, candidates = X[1:4, ]), "candidates")
  bad <- D
  bad[2] <- -1
  expect_arg_error(facility_greedy(bad, 3), "X", "non-negative")
  bad[2] <- NA
  expect_arg_error(facility_greedy(bad, 3), "X", "NA")
  expect_arg_error(facility_greedy(D, 3, cl = 2), "X", "dist")
})

test_that("as.data.frame() has one row per pick, cumulative f and coverage", {
  named <- X
  rownames(named) <- sprintf("site%02d", seq_len(50))
  fit <- facility_greedy(named, 5, mode = "dc", threads = 1, initial = 7)
  picks <- as.data.frame(fit)
  expect_named(picks, c("order", "index", "name", "gain", "objective", "coverage"))
  expect_identical(picks$order, 1:5)
  expect_identical(picks$index, fit$selected)
  expect_identical(picks$name, rownames(named)[fit$selected])
  f <- vapply(1:5, function(t) facility_objective(named, c(7, fit$selected[seq_len(t)]),
                                                  threads = 1), 0)
  expect_equal(picks$objective, f, tolerance = 1e-12)
  expect_equal(picks$gain, diff(c(facility_objective(named, 7, threads = 1), f)),
               tolerance = 1e-12)
  expect_equal(picks$coverage, f / 50, tolerance = 1e-12)
  expect_identical(summary(fit)$picks, picks)

  # no names without row names; coverage NA where f(V) was not computed
  plain <- as.data.frame(facility_greedy(X, 3, mode = "g", threads = 1, candidates = X[1:9, ]))
  expect_named(plain, c("order", "index", "gain", "objective", "coverage"))
  expect_true(all(is.na(plain$coverage)))
  labelled <- as.data.frame(facility_greedy(dist(named), 2, threads = 1))
  expect_identical(labelled$name, rownames(named)[labelled$index])
})
