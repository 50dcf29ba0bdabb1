# print(), summary(), plot() and predict() of facility_greedy fits, and plot()
# with the caller's graphical parameters for every class that has one.

# Points in the plane for the method tests.
plane_points <- function(n = 60) {
  set.seed(7)
  matrix(rnorm(n * 2), ncol = 2)
}

test_that("print, summary and plot describe the result", {
  case <- exact_cases()$gaussian
  fit <- facility_greedy(case$X, case$k, mode = "dc", sigma = case$sigma, threads = 1)
  expect_s3_class(fit, "facility_greedy")
  expect_output(print(fit), "f\\(S\\) =")
  s <- summary(fit)
  expect_s3_class(s, "summary.facility_greedy")
  expect_equal(nrow(s$picks), case$k)
  expect_equal(s$picks$objective[case$k], fit$objective, tolerance = 1e-9)
  expect_output(print(s), "no set of [0-9]+ does better than [0-9.]+ times this one")
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot(fit)
  expect_identical(drawn$objective[-1], summary(fit)$picks$objective)
  expect_equal(dim(fit$facilities), c(case$k, ncol(case$X)))
})

test_that("facilities are the selected rows of X, names kept", {
  case <- exact_cases()$gaussian
  X <- case$X
  dimnames(X) <- list(pt = paste0("p", seq_len(nrow(X))), coord = paste0("x", seq_len(ncol(X))))
  for (threads in 1:2) {
    fit <- facility_greedy(X, case$k, mode = "nhpc", sigma = case$sigma, threads = threads)
    expect_identical(fit$facilities, X[fit$selected, , drop = FALSE])
  }
  big <- matrix(seq_len(2e6) / 7, ncol = 4)   # above the size the transpose runs in parallel
  for (threads in 1:2) expect_identical(facloc:::point_rows(big, threads), t(big))
})

test_that("verbose reports progress from the main thread", {
  case <- exact_cases()$line
  expect_output(facility_greedy(case$X, 3, mode = "c", sigma = case$sigma, verbose = TRUE),
                "round 3, 3 selected")
})

test_that("plot() of a facility_greedy fit copes with an infinite or NA bound", {
  X <- plane_points()
  pdf(NULL)
  on.exit(dev.off())
  stochastic <- facility_greedy(X, k = 3, sigma = 1, mode = "stochastic", threads = 1)
  expect_equal(stochastic$bound, nrow(X))   # only the cap, on points
  expect_false(all(is.finite(stochastic$trace$bound)))
  expect_silent(plot(stochastic))
  skip_if_not(can_start_cluster(), "cannot start a local PSOCK cluster")
  greedi <- facility_greedy(X, k = 4, sigma = 1, cl = 2, threads = 1)
  expect_true(is.na(greedi$bound))
  expect_silent(plot(greedi))
})

test_that("plot() of a budget fit without picks draws its start", {
  X <- plane_points()
  fit <- facility_greedy(X, k = 3, sigma = 1, mode = "dc", budget = 0.5, threads = 1)
  expect_length(fit$selected, 0L)
  pdf(NULL)
  on.exit(dev.off())
  expect_silent(plot(fit))
  # both panels span |S| from 0 to 1
  expect_equal(par("usr")[1:2], c(0, 1) + c(-0.04, 0.04))
})

test_that("graphical parameters override the plot methods' own", {
  X <- plane_points()
  pdf(NULL)
  on.exit(dev.off())
  fit <- facility_greedy(X, k = 3, sigma = 1, mode = "dc", threads = 1)
  expect_invisible(plot(fit, main = "mine"))
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
  X <- plane_points()
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
  X <- plane_points()
  S <- exp(-as.matrix(stats::dist(X))^2 / 2)
  fit <- facility_greedy(similarity = S, k = 3, mode = "dc", threads = 1)
  expect_arg_error(predict(fit, -S), "newdata", "^`newdata` must be non-negative$")
  bad <- S
  bad[1, 1] <- NA
  expect_arg_error(predict(fit, bad), "newdata", "^`newdata` must not contain NA")
  expect_arg_error(predict(fit, "S"), "newdata", "^`newdata` must be a numeric matrix")
  skip_if_not_installed("Matrix")
  expect_arg_error(predict(fit, Matrix::Matrix(-S, sparse = TRUE)), "newdata",
                        "^`newdata` must be non-negative$")
})

test_that("facility_greedy() returns its result visibly, so the prompt prints it", {
  X <- plane_points()
  expect_visible(facility_greedy(X, k = 2, sigma = 1, threads = 1))
  expect_visible(facility_greedy(X, coverage = 0.5, sigma = 1, threads = 1))
})

test_that("print() hints at \"dc\" when a matrix-free mode evaluated more than n x m pairs", {
  set.seed(8)
  E <- matrix(rnorm(800 * 128), 800)
  E <- E / sqrt(rowSums(E^2))
  fit <- facility_greedy(E, 20, mode = "nhpc", threads = 1)
  expect_gt(fit$pairs, 800^2)   # unit vectors under a wide kernel: the bounds prune little
  out <- capture.output(print(fit))
  expect_true(any(grepl(sprintf("hint: %.1f times the n x m kernel evaluations", fit$pairs / 800^2),
                        out, fixed = TRUE)))
  expect_true(any(grepl("mode = \"dc\" makes them once (a 4.9 MiB matrix)", out, fixed = TRUE)))
  few <- facility_greedy(facility_data("small", n = 2000), 20, mode = "nhpc", sigma = 20, threads = 1)
  expect_lt(few$pairs, 2000^2)
  expect_false(any(grepl("hint:", capture.output(print(few)), fixed = TRUE)))
  exact <- facility_greedy(E, 5, mode = "dc", threads = 1)
  expect_false(any(grepl("hint:", capture.output(print(exact)), fixed = TRUE)))
})
