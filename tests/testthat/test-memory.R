# Memory: a request whose working memory exceeds the limit fails before
# allocating, with a classed error saying how much it needs and which mode
# needs less.

set.seed(3)
Xm <- matrix(rnorm(400), 200)

solve_bytes <- function(X, k, mode) {
  problem <- facility_problem(X, 1)
  .Call(C_facloc_solve_bytes, problem, solver_control(facility_control(), mode, k, 1L, FALSE))
}

test_that("an exact mode above the limit fails with facloc_error_memory naming the need and the alternative", {
  need <- solve_bytes(Xm, 5, "g")
  expect_gt(need, 8 * 200 * 200)          # the n x m matrix at least
  err <- with_memory_limit(need / 2,
                           expect_error(facility_greedy(Xm, 5, mode = "g", threads = 1, sigma = 1),
                                        class = "facloc_error_memory"))
  expect_s3_class(err, "facloc_error")
  expect_equal(err$bytes, need)
  expect_equal(err$limit, need / 2)
  expect_match(conditionMessage(err), paste("needs about", format_bytes(need)), fixed = TRUE)
  expect_match(conditionMessage(err), "\"hpc\"", fixed = TRUE)        # the mode that needs less
  expect_match(conditionMessage(err), "facloc.memory_limit", fixed = TRUE)
})

test_that("every exact mode is refused, and the limit itself is enough", {
  for (mode in facility_modes("exact")) {
    need <- solve_bytes(Xm, 5, mode)
    below <- with_memory_limit(need - 1, tryCatch(
      facility_greedy(Xm, 5, mode = mode, threads = 1, sigma = 1),
      facloc_error_memory = function(e) e))
    fit <- with_memory_limit(need, facility_greedy(Xm, 5, mode = mode, threads = 1, sigma = 1))
    expect_length(fit$selected, 5)
    expect_false(fit$streamed)
    if (mode != "dc") {
      expect_s3_class(below, "facloc_error_memory")
      next
    }
    # "dc" on points computes its gains from the points instead (test-stream.R)
    expect_true(below$streamed)
    expect_identical(below$selected, fit$selected)
  }
  expect_error(with_memory_limit(1e4, facility_greedy(Xm, 5, mode = "dc", threads = 1, sigma = 1)),
               class = "facloc_error_memory")
})

test_that("a request far beyond the machine fails before allocating anything", {
  # 2 million points: W would need 32 TB; refused from the estimate, so
  # the error carries the estimate (an allocation failure would not).
  big <- matrix(0, 2e6, 1)
  err <- expect_error(facility_greedy(big, 2, mode = "g", threads = 1, sigma = 1),
                      class = "facloc_error_memory")
  expect_gt(err$bytes, 3e13)
  expect_lt(err$limit, err$bytes)
  expect_match(conditionMessage(err), "TiB", fixed = TRUE)
})

test_that("a precomputed similarity matrix needs no second n x m matrix", {
  W <- ref_similarity(Xm, sigma = 1)
  problem <- facility_problem(NULL, 1, similarity = W)
  need <- .Call(C_facloc_solve_bytes, problem, solver_control(facility_control(), "dc", 5, 1L, FALSE))
  expect_lt(need, 8 * 200 * 200)
  fit <- with_memory_limit(8 * 200 * 200, facility_greedy(similarity = W, k = 5, mode = "dc", threads = 1))
  expect_greedy(fit, ref_greedy(W, 5))
})

test_that("the default limit follows the machine's available memory", {
  limit <- with_memory_limit(NULL, facloc_memory_limit())
  expect_gt(limit, 0)
  available <- available_memory()
  if (is.na(available)) expect_identical(limit, 16 * 2^30)
  else expect_equal(limit, 0.8 * available, tolerance = 0.05)
})

test_that("an allocation failure in C becomes a classed memory error", {
  err <- expect_error(check_status(1L, "the solver"), class = "facloc_error_memory")
  expect_match(conditionMessage(err), "could not allocate", fixed = TRUE)
  expect_error(check_status(3L, "the solver"), class = "facloc_error_internal")
  expect_identical(check_status(0L), invisible(TRUE))
})
