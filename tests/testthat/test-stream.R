# Mode "dc" without its matrix (src/celf_stream.c): where the n x m
# matrix would exceed the memory limit, "dc" on points computes its gains
# from the points, a batch of candidates at a time by the same tiled
# kernel.  Greedy's picks against the plain-R oracle, and the same bits as
# "dc" holding its matrix.

# Both runs of "dc" on the same arguments, the second under `limit`,
# between the streamed solve's memory (the packed points, a thread's room
# for 128 candidates and the lists of 48, and a quarter of the limit for
# the lists kept) and the held one's.
held_and_streamed <- function(X, k, limit, ...) {
  held <- facility_greedy(X, k, mode = "dc", ...)
  streamed <- with_memory_limit(limit, facility_greedy(X, k, mode = "dc", ...))
  list(held = held, streamed = streamed)
}

expect_same_bits <- function(runs, label) {
  expect_false(runs$held$streamed, label = paste(label, "held"))
  expect_true(runs$streamed$streamed, label = paste(label, "streamed"))
  expect_identical(runs$streamed$selected, runs$held$selected, label = paste(label, "picks"))
  expect_identical(runs$streamed$gains, runs$held$gains, label = paste(label, "gains"))
  expect_identical(runs$streamed$objective, runs$held$objective, label = paste(label, "f(S)"))
}

test_that("streamed dc is greedy (plain-R oracle) and dc's bits", {
  set.seed(11)
  # 700 clients: two full tiles of 256 clients and a part; d = 5
  X <- matrix(rnorm(700 * 5), 700)
  w <- runif(700, 0.5, 2)
  runs <- held_and_streamed(X, 25, 3e6, sigma = 1.5, weights = w, threads = 2)
  expect_same_bits(runs, "weights, 2 threads")
  W <- ref_similarity(X, sigma = 1.5)
  expect_greedy_tied(runs$streamed, W, weights = w, label = "streamed")
  expect_equal(runs$streamed$objective, ref_objective(W, runs$streamed$selected, w),
               tolerance = 1e-12)
})

test_that("streamed dc keeps initial facilities, candidates apart and one thread", {
  set.seed(12)
  X <- matrix(rnorm(1500 * 4), 1500)
  expect_same_bits(held_and_streamed(X, 30, 6e6, initial = c(7, 300, 1499), threads = 1),
                   "initial")
  C <- X[seq(1, 1500, by = 2), ] + 0.01
  runs <- held_and_streamed(X, 30, 6e6, candidates = C, threads = 2)
  expect_same_bits(runs, "candidates")
  W <- ref_similarity(X, C, sigma = runs$held$sigma)
  expect_greedy_tied(runs$streamed, W, label = "candidates")
})

test_that("streamed dc spans several depth slices of the tiled kernel", {
  set.seed(13)
  # d = 300: three slices of FL_TILE_DEPTH = 128 coordinates
  X <- matrix(rnorm(1500 * 300), 1500)
  runs <- held_and_streamed(X, 40, 14e6, threads = 2)
  expect_same_bits(runs, "d = 300")
})

test_that("streamed dc reports how it ran and stays within its memory", {
  set.seed(14)
  X <- matrix(rnorm(700 * 5), 700)
  fit <- with_memory_limit(3e6, facility_greedy(X, 10, mode = "dc"))
  expect_output(print(fit), "no matrix: gains from the points", fixed = TRUE)
  expect_true(summary(fit)$streamed)
  expect_true(is.finite(fit$bound) && fit$bound >= fit$objective)
  # below even what the streamed solve needs: the classed memory error
  expect_error(with_memory_limit(1e4, facility_greedy(X, 10, mode = "dc")),
               class = "facloc_error_memory")
})

test_that("the default call streams dc in 128 dimensions or more past its matrix size", {
  set.seed(15)
  X <- matrix(rnorm(3500 * 128), 3500)
  # 3500^2 cells: above the 1e7 of a small problem; the matrix (98 MB)
  # within a quarter of 1 GB: held
  held <- with_memory_limit(1e9, facility_greedy(X, 5))
  expect_identical(held$mode, "dc")
  expect_false(held$streamed)
  # a quarter of 200 MB is below it: streamed, the same picks
  streamed <- with_memory_limit(2e8, facility_greedy(X, 5))
  expect_identical(streamed$mode, "dc")
  expect_true(streamed$streamed)
  expect_identical(streamed$selected, held$selected)
  # below 128 dimensions the default is "nhpc"
  expect_identical(with_memory_limit(2e8, facility_greedy(X[, 1:32], 5))$mode, "nhpc")
})
