# facility_greedy(coverage = q): the shortest greedy prefix reaching
# q f(V), against ref_cover() (helper-reference.R), in every mode that
# accepts it, at 1 and 2 threads.

set.seed(21)
X <- matrix(rnorm(60 * 2), 60, 2)
Y <- matrix(rnorm(25 * 2, sd = 1.2), 25, 2)
w <- rexp(60)

cover_fit <- function(mode, threads, ...) {
  facility_greedy(..., mode = mode, threads = threads, control = greedy_control(mode))
}

test_that("coverage on points equals the plain-R greedy cover in every mode", {
  W <- ref_similarity(X, sigma = 0.8)
  for (q in c(0.5, 0.9)) {
    ref <- ref_cover(W, q)
    expect_identical(ref$total, nrow(X) + 0)   # f(V) = n: every client is a candidate
    for (mode in facility_modes()) for (threads in 1:2) {
      fit <- cover_fit(mode, threads, X, coverage = q, sigma = 0.8,
                       k = if (mode == "stochastic") 60)
      label <- sprintf("q = %g, %s, %d threads", q, mode, threads)
      if (mode %in% facility_modes("exact")) {
        # pick 13 at q = 0.9: candidates 8 and 30 tie exactly (oracle gains
        # equal to the bit); the tiled kernel rounds 30 ahead
        expect_greedy_tied(fit, W, label = label)
        expect_identical(length(fit$selected), length(ref$selected))
      } else {
        expect_greedy(fit, ref, label = label)
      }
      expect_equal(fit$objective_all, 60)
      expect_identical(fit$coverage, q)
    }
  }
})

test_that("coverage with candidates, weights and initial facilities uses their f(V)", {
  W <- ref_similarity(X, Y, sigma = 0.8)
  ref <- ref_cover(W, 0.85, weights = w, initial = 4L)
  expect_lt(ref$total, sum(w))   # no candidate sits on a client
  for (mode in facility_modes()) for (threads in 1:2) {
    fit <- cover_fit(mode, threads, X, coverage = 0.85, sigma = 0.8, candidates = Y,
                     weights = w, initial = 4, k = if (mode == "stochastic") 24)
    expect_greedy(fit, ref, label = sprintf("%s, %d threads", mode, threads))
    expect_equal(fit$objective_all, ref$total, tolerance = 1e-12)
  }
})

test_that("coverage on a similarity matrix, and coverage = 1 on exact ties", {
  W <- ref_similarity(X, Y, sigma = 0.8)
  ref <- ref_cover(W, 0.7)
  for (mode in facility_modes(c("exact", "sampled"))) for (threads in 1:2)
    expect_greedy(cover_fit(mode, threads, similarity = W, coverage = 0.7,
                            k = if (mode == "stochastic") 25), ref,
                  label = sprintf("%s, %d threads", mode, threads))

  case <- exact_cases()$ties   # each grid point twice: f(V) = n once all 16 are open
  ref <- ref_cover(ref_similarity(case$X, sigma = case$sigma), 1)
  expect_length(ref$selected, 16L)
  for (mode in facility_modes()) for (threads in 1:2) {
    fit <- cover_fit(mode, threads, case$X, coverage = 1, sigma = case$sigma,
                     k = if (mode == "stochastic") 32)
    label <- sprintf("ties, %s, %d threads", mode, threads)
    # only the exact modes break exact ties by the lowest index: the others
    # may open any 16 distinct points
    if (!mode %in% facility_modes("exact")) {
      expect_setequal(case$X[fit$selected, 1] * 10 + case$X[fit$selected, 2], 1:4 * 10 + rep(1:4, each = 4))
      expect_identical(fit$objective, 32)
    } else {
      expect_greedy(fit, ref, label = label)
    }
  }
})

test_that("with the relaxed defaults each mode stops at the first prefix reaching q", {
  for (mode in facility_modes()) for (threads in 1:2) {
    fit <- facility_greedy(X, coverage = 0.9, mode = mode, threads = threads, sigma = 0.8,
                           k = if (mode == "stochastic") 60)
    f <- vapply(seq_along(fit$selected), function(t)
      facility_objective(X, fit$selected[seq_len(t)], sigma = 0.8, threads = 1), 0)
    label <- sprintf("%s, %d threads", mode, threads)
    expect_gte(f[length(f)], 0.9 * 60, label = label)
    if (length(f) > 1L) expect_lt(f[length(f) - 1L], 0.9 * 60, label = label)
  }
  # a batch overshoots by at most batch - 1 picks
  fit <- facility_greedy(X, coverage = 0.95, mode = "hc", threads = 1, sigma = 0.8,
                         control = facility_control(batch = 5))
  f <- vapply(seq_along(fit$selected), function(t)
    facility_objective(X, fit$selected[seq_len(t)], sigma = 0.8, threads = 1), 0)
  expect_lte(length(f) - which(f >= 0.95 * 60)[1], 4)
})

test_that("the bound of a cover is for sets of the size returned", {
  set.seed(3)
  Z <- matrix(rnorm(14 * 2), 14, 2)
  W <- ref_similarity(Z, sigma = 0.7)
  for (mode in setdiff(facility_modes(), "stochastic")) {
    fit <- cover_fit(mode, 2, Z, coverage = 0.6, sigma = 0.7)
    t <- length(fit$selected)
    expect_gte(fit$bound, ref_optimum(W, t) - 1e-12)
    # a bound for sets of all 14 candidates would be f(V) = 14; dc's, from
    # the stale tops of its heaps, is looser than the others'
    if (mode != "dc") expect_lt(fit$bound, 14, label = mode)
    expect_gte(fit$bound, fit$objective)
  }
})

test_that("`k` caps a cover, with a classed warning when it falls short", {
  expect_warning(fit <- facility_greedy(X, 2, coverage = 0.99, mode = "dc", sigma = 0.8,
                                        threads = 1),
                 class = "facloc_warning_coverage")
  expect_length(fit$selected, 2L)
  expect_silent(facility_greedy(X, 30, coverage = 0.5, mode = "dc", sigma = 0.8, threads = 1))
})

test_that("as.data.frame() of a cover ends at the asked coverage", {
  fit <- facility_greedy(X, coverage = 0.8, mode = "dc", sigma = 0.8, threads = 1)
  picks <- as.data.frame(fit)
  expect_gte(picks$coverage[nrow(picks)], 0.8)
  expect_lt(picks$coverage[nrow(picks) - 1L], 0.8)
  expect_output(print(fit), sprintf("f(S) / f(V) = %.4f (coverage 0.8 asked)",
                                    fit$objective / 60), fixed = TRUE)
})

test_that("bad `coverage` values get a classed error naming it", {
  for (bad in list(0, -0.5, 1.5, NA, NA_real_, c(0.5, 0.6), "0.5", Inf, TRUE))
    expect_arg_error(facility_greedy(X, coverage = bad, mode = "dc", sigma = 0.8), "coverage")
})

test_that("what cannot be combined with `coverage` is refused by name", {
  for (args in list(list(budget = 3, cost = rep(1, 60)), list(cost = rep(1, 60)))) {
    err <- expect_error(do.call(facility_greedy, c(list(X, coverage = 0.5, mode = "dc"), args)),
                        class = "facloc_error_unsupported")
    expect_identical(err$arg, "coverage")
    expect_match(conditionMessage(err), "`coverage`", fixed = TRUE)
  }
  err <- expect_error(facility_greedy(X, 3, coverage = 0.5, cl = 2),
                      class = "facloc_error_unsupported")
  expect_identical(err$arg, "coverage")
  expect_arg_error(facility_greedy(X, coverage = 0.5, mode = "stochastic"), "k")
})

test_that("the certificate of a coverage fit names the size it stopped at", {
  fit <- facility_greedy(quakes[c("long", "lat")], coverage = 0.9, threads = 1)
  size <- length(fit$selected)
  expect_lt(size, fit$k)
  expect_output(print(fit), sprintf("no set of %d does better", size))
  expect_output(print(summary(fit)), sprintf("no set of %d does better", size))
})
