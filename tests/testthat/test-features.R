# Candidates apart from clients, weights, initial facilities, sparse
# similarities, budgets and predict(), against the plain-R references of
# helper-reference.R, in every mode that accepts each feature, at 1 and 2
# threads.

point_modes <- facility_modes()
matrix_modes <- facility_modes(c("exact", "sampled"))

set.seed(11)
X <- matrix(rnorm(60 * 2), 60, 2)
Y <- matrix(rnorm(25 * 2, sd = 1.2), 25, 2)
w <- rexp(60)
w[c(4, 9)] <- 0
W_xy <- ref_similarity(X, Y, sigma = 0.7)

test_that("clients apart from candidates, weights and initial facilities match greedy", {
  cases <- list(
    candidates = list(args = list(candidates = Y), W = W_xy, ref = list()),
    weights = list(args = list(weights = w), W = ref_similarity(X, sigma = 0.7),
                   ref = list(weights = w)),
    initial = list(args = list(initial = c(5, 17)), W = ref_similarity(X, sigma = 0.7),
                   ref = list(initial = c(5L, 17L))),
    all = list(args = list(candidates = Y, weights = w, initial = c(2, 20)), W = W_xy,
               ref = list(weights = w, initial = c(2L, 20L))))
  for (name in names(cases)) {
    case <- cases[[name]]
    ref <- do.call(ref_greedy, c(list(case$W, 6), case$ref))
    for (mode in point_modes) for (threads in 1:2) {
      fit <- do.call(facility_greedy, c(list(X, 6, mode = mode, threads = threads, sigma = 0.7,
                                             control = greedy_control(mode)), case$args))
      expect_greedy(fit, ref, sprintf("%s, mode %s, %d threads", name, mode, threads))
      expect_identical(fit$initial, as.integer(case$args$initial))
    }
  }
})

test_that("a rectangular similarity matrix alone gives the candidates", {
  ref <- ref_greedy(W_xy, 5, weights = w, initial = 3L)
  for (mode in matrix_modes) for (threads in 1:2) {
    fit <- facility_greedy(similarity = W_xy, k = 5, mode = mode, threads = threads,
                           weights = w, initial = 3, control = greedy_control(mode))
    expect_greedy(fit, ref, sprintf("mode %s, %d threads", mode, threads))
    expect_identical(c(fit$n, fit$m), c(60L, 25L))
  }
})

test_that("knn_similarity() keeps exactly the k nearest candidates", {
  skip_if_not_installed("Matrix")
  D2 <- -2 * 0.7^2 * log(W_xy)             # squared distances, clients x candidates
  for (threads in 1:2) {
    S <- knn_similarity(X, k = 4, sigma = 0.7, candidates = Y, threads = threads)
    expect_s4_class(S, "dgCMatrix")
    expect_identical(dim(S), c(60L, 25L))
    keep <- t(apply(D2, 1, function(d) seq_along(d) %in% order(d)[1:4]))
    expect_identical(as.matrix(S) > 0, keep)
    expect_equal(as.matrix(S), W_xy * keep, tolerance = 1e-12)
    if (threads == 1) S1 <- S else expect_identical(S, S1)
  }
  # clients as candidates: each client is its own nearest neighbour
  S <- knn_similarity(X, k = 3, sigma = 0.7, threads = 2)
  expect_equal(unname(diag(as.matrix(S))), rep(1, 60))
  expect_identical(tabulate(S@i + 1L, 60L), rep(3L, 60))
})

test_that("knn_similarity() is exact on larger clustered data and breaks ties by index", {
  skip_if_not_installed("Matrix")
  set.seed(3)
  centres <- matrix(rnorm(8 * 5, sd = 6), 8)
  P <- centres[sample(8, 700, replace = TRUE), ] + matrix(rnorm(700 * 5), 700)
  P[651:700, ] <- P[1:50, ]                # exact duplicates: ties by lowest index
  S <- knn_similarity(P, k = 7, sigma = 2, threads = 2)
  expect_identical(S, knn_similarity(P, k = 7, sigma = 2, threads = 1))
  triplets <- methods::as(S, "TsparseMatrix")
  D2 <- as.matrix(stats::dist(P))^2
  for (i in c(1, 2, 50, 333, 651, 700)) {
    nearest <- order(D2[i, ], seq_len(700))[1:7]   # ties to the lowest index
    row <- triplets@i == i - 1L
    expect_identical(sort(triplets@j[row] + 1L), sort(nearest))
    expect_equal(triplets@x[row][order(triplets@j[row])],
                 unname(exp(-D2[i, sort(nearest)] / 8)), tolerance = 1e-12)
  }
  expect_identical(tabulate(S@i + 1L, 700L), rep(7L, 700))
})

test_that("sparse and dense similarities with the same non-zeros give the same result", {
  skip_if_not_installed("Matrix")
  S <- knn_similarity(X, k = 6, sigma = 0.7, candidates = Y, threads = 1)
  D <- as.matrix(S)
  for (args in list(list(), list(weights = w, initial = c(4, 9)))) {
    ref <- do.call(ref_greedy, c(list(D, 5), if (length(args))
      list(weights = w, initial = c(4L, 9L))))
    for (mode in matrix_modes) for (threads in 1:2) {
      common <- c(list(k = 5, mode = mode, threads = threads, control = greedy_control(mode)), args)
      sparse <- do.call(facility_greedy, c(list(similarity = S), common))
      dense <- do.call(facility_greedy, c(list(similarity = D), common))
      expect_identical(sparse$selected, dense$selected)
      expect_identical(sparse$gains, dense$gains)
      expect_identical(sparse$objective, dense$objective)
      expect_greedy(sparse, ref, sprintf("sparse, mode %s, %d threads", mode, threads))
    }
  }
  expect_equal(facility_objective(similarity = S, selected = c(2, 7), weights = w),
               ref_objective(D, c(2, 7), w), tolerance = 1e-12)
  # other sparse classes are converted, symmetric ones included
  triplets <- methods::as(S, "TsparseMatrix")
  expect_identical(facility_greedy(similarity = triplets, k = 3, mode = "dc")$selected,
                   facility_greedy(similarity = D, k = 3, mode = "dc")$selected)
  Sym <- Matrix::forceSymmetric(knn_similarity(X, k = 5, sigma = 0.7, threads = 1))
  expect_identical(facility_greedy(similarity = Sym, k = 4, mode = "c")$selected,
                   facility_greedy(similarity = as.matrix(Sym), k = 4, mode = "c")$selected)
})

test_that("the memory estimate of a sparse similarity counts its non-zeros", {
  skip_if_not_installed("Matrix")
  n <- 30000
  S <- Matrix::sparseMatrix(i = seq_len(n), j = seq_len(n), x = 1, dims = c(n, n))
  old <- options(facloc.memory_limit = 2^24)   # 16 MiB, far below 8 n^2
  on.exit(options(old))
  fit <- facility_greedy(similarity = S, k = 2, mode = "dc", threads = 1)
  expect_identical(fit$selected, 1:2)
  expect_error(facility_greedy(similarity = S[1:1500, 1:1500], k = 1, mode = "g"), NA)
  expect_error(facility_greedy(X = matrix(runif(1500), 1500), k = 1, mode = "g"),
               class = "facloc_error_memory")
})

test_that("budgets follow the cost-benefit and unit-cost references and stay feasible", {
  W <- ref_similarity(X, Y, sigma = 0.7)
  set.seed(5)
  cost <- runif(25, 0.5, 3)
  cases <- list(list(budget = 4), list(budget = 2.5, weights = w),
                list(budget = 6, weights = w, initial = c(1L, 13L)),
                list(budget = 3, k = 2))
  rules <- character()
  for (case in cases) {
    k <- if (is.null(case$k)) ncol(W) else case$k
    ref <- ref_budget(W, cost, case$budget, k = k,
                      weights = if (is.null(case$weights)) rep(1, 60) else case$weights,
                      initial = if (is.null(case$initial)) integer() else case$initial)
    rules <- c(rules, ref$rule)
    for (mode in facility_modes("exact")) for (threads in 1:2) {
      fit <- facility_greedy(X, if (!is.null(case$k)) case$k, mode = mode, threads = threads,
                             sigma = 0.7, candidates = Y, weights = case$weights,
                             initial = case$initial, cost = cost, budget = case$budget)
      what <- sprintf("budget %g, mode %s, %d threads", case$budget, mode, threads)
      expect_greedy(fit, ref, what)
      expect_identical(fit$rule, ref$rule, label = what)
      expect_lte(fit$spent, case$budget)
      expect_equal(fit$spent, sum(cost[fit$selected]))
      expect_gte(fit$bound, fit$objective)
    }
  }
  expect_true(all(c("unit-cost", "cost-benefit") %in% rules))
})

test_that("the budget bound holds and the better rule is within (1 - 1/e)/2 of the optimum", {
  set.seed(8)
  P <- matrix(rnorm(30 * 2), 30, 2)
  W <- ref_similarity(P, sigma = 0.6)
  cost <- c(rep(1, 29), 0.2)
  fit <- facility_greedy(P, mode = "dc", sigma = 0.6, cost = cost, budget = 2.2, threads = 2)
  # exhaustive optimum within the budget
  best <- 0
  for (size in 1:3) {
    sets <- utils::combn(30, size)
    ok <- colSums(matrix(cost[sets], size)) <= 2.2
    if (any(ok)) best <- max(best, apply(sets[, ok, drop = FALSE], 2,
                                         function(S) ref_objective(W, S)))
  }
  expect_gte(fit$objective, (1 - exp(-1)) / 2 * best)
  expect_gte(fit$bound, best - 1e-9)
  # unit costs and budget b: a cardinality constraint of floor(b) picks
  unit <- facility_greedy(P, mode = "g", sigma = 0.6, budget = 3.5, threads = 1)
  expect_identical(unit$selected, facility_greedy(P, 3, mode = "g", sigma = 0.6)$selected)
})

test_that("arguments a mode cannot honour get a classed error naming the modes that can", {
  for (mode in facility_modes(c("matrix-free", "sampled"))) {
    err <- expect_error(facility_greedy(X, 2, mode = mode, sigma = 1, budget = 3),
                        class = "facloc_error_unsupported")
    expect_identical(err$arg, "budget")
    expect_match(conditionMessage(err), "\"g\", \"c\", \"dc\"", fixed = TRUE)
    err <- expect_error(facility_greedy(X, 2, mode = mode, sigma = 1, cost = rep(1, 60)),
                        class = "facloc_error_unsupported")
    expect_identical(err$arg, "cost")
  }
  W <- ref_similarity(X, sigma = 1)
  for (mode in facility_modes("matrix-free")) {   # they would optimise the kernel of X instead
    err <- expect_error(facility_greedy(X, 2, mode = mode, similarity = W),
                        class = "facloc_error_unsupported")
    expect_identical(err$arg, "similarity")
  }
  skip_if_not_installed("Matrix")
  S <- knn_similarity(X, k = 3, sigma = 1, threads = 1)
  for (mode in facility_modes("matrix-free")) {
    err <- expect_error(facility_greedy(X, 2, mode = mode, similarity = S),
                        class = "facloc_error_unsupported")
    expect_match(conditionMessage(err), "\"stochastic\"", fixed = TRUE)
  }
})

test_that("a similarity or a budget makes the default mode \"dc\", which optimises the similarity", {
  W <- ref_similarity(X, sigma = 0.5)^2   # not the kernel of X at any sigma
  fit <- facility_greedy(X, 4, similarity = W, threads = 1)
  expect_identical(fit$mode, "dc")
  expect_greedy(fit, ref_greedy(W, 4))
  expect_equal(fit$objective, ref_objective(W, fit$selected), tolerance = 1e-12)
  expect_identical(fit$sigma, NA_real_)
  expect_identical(fit$facilities, X[fit$selected, , drop = FALSE])
  assigned <- predict(fit, W, threads = 1)   # by the similarity optimised, not a kernel
  expect_identical(assigned$facility, unname(apply(W[, fit$selected], 1, which.max)))
  expect_error(predict(fit, X, threads = 1), class = "facloc_error_argument")
  fit <- facility_greedy(X, mode = NULL, sigma = 1, budget = 3, threads = 1)
  expect_identical(fit$mode, "dc")
})

test_that("the default mode is exact where the matrix is small, and at 128 dimensions and more", {
  dm <- function(n, d) facloc:::default_mode("points", list(n = n, m = n, d = d), NULL, NULL, facility_control())
  old <- options(facloc.memory_limit = 2^34)
  on.exit(options(old))
  expect_identical(dm(3000L, 2L), "dc")
  expect_identical(dm(5000L, 32L), "nhpc")
  expect_identical(dm(5000L, 127L), "nhpc")
  expect_identical(dm(5000L, 128L), "dc")
  # beyond 1 GiB or a quarter of the limit too: "dc" then computes its
  # gains from the points (test-stream.R)
  expect_identical(dm(11586L, 384L), "dc")
  options(facloc.memory_limit = 4 * 8 * 5000^2 - 1)
  expect_identical(dm(5000L, 128L), "dc")
  options(facloc.memory_limit = 2^34)
  set.seed(5)
  E <- matrix(rnorm(3500 * 128), 3500)
  fit <- facility_greedy(E, 3, threads = 1)
  expect_identical(fit$mode, "dc")
  expect_identical(facility_greedy(E[, 1:32], 3, threads = 1)$mode, "nhpc")
})

test_that("bad costs, budgets, epsilon and kNN settings are rejected by name", {
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = 1, cost = rep(1, 59), budget = 2),
                   "cost")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = 1, cost = c(0, rep(1, 59)),
                                   budget = 2), "cost")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = 1, cost = rep(1, 60)), "budget")
  expect_arg_error(facility_greedy(X, 2, mode = "g", sigma = 1, budget = -1), "budget")
  expect_arg_error(facility_greedy(X, mode = "g", sigma = 1), "k")
  expect_arg_error(facility_control(epsilon = 1.5), "epsilon")
  skip_if_not_installed("Matrix")
  expect_arg_error(knn_similarity(X, k = 61), "k")
  expect_arg_error(knn_similarity(X, k = 2, candidates = matrix(1, 3, 3)), "candidates")
  expect_arg_error(knn_similarity(X, k = 2, sigma = 0), "sigma")
  neg <- Matrix::sparseMatrix(i = 1:2, j = 1:2, x = c(1, -1))
  expect_arg_error(facility_greedy(similarity = neg, k = 1, mode = "g"), "similarity")
})

test_that("predict() assigns points to their most similar open facility", {
  fit <- facility_greedy(X, 4, mode = "dc", sigma = 0.7, candidates = Y,
                         initial = c(3, 21), threads = 1)
  open <- c(3L, 21L, fit$selected)
  set.seed(2)
  new <- matrix(rnorm(40 * 2, sd = 1.5), 40, 2)
  ref <- ref_assign(ref_similarity(new, Y, sigma = 0.7), open)
  for (threads in 1:2) {
    p <- predict(fit, new, threads = threads)
    expect_identical(p$candidate, open[ref$index])
    expect_identical(p$facility, ifelse(ref$index > 2L, ref$index - 2L, NA_integer_))
    expect_equal(p$similarity, ref$similarity, tolerance = 1e-12)
  }
  # the clients themselves, ties to the first facility
  p <- predict(facility_greedy(X, 3, mode = "g", sigma = 0.7), X)
  expect_true(all(p$similarity > 0 & p$similarity <= 1))
  expect_error(predict(fit, matrix(1, 2, 3)), class = "facloc_error_argument")
  expect_error(predict(fit), class = "facloc_error_argument")
})

test_that("predict() on a similarity fit reads the similarity of new points", {
  fit <- facility_greedy(similarity = W_xy, k = 3, mode = "c", initial = 7, threads = 1)
  ref <- ref_assign(W_xy, c(7L, fit$selected))
  p <- predict(fit, W_xy)
  expect_identical(p$candidate, c(7L, fit$selected)[ref$index])
  expect_equal(p$similarity, ref$similarity)
  expect_error(predict(fit, W_xy[, -1]), class = "facloc_error_argument")
  skip_if_not_installed("Matrix")
  S <- knn_similarity(X, k = 5, sigma = 0.7, candidates = Y, threads = 1)
  D <- as.matrix(S)
  fit <- facility_greedy(similarity = S, k = 4, mode = "dc", threads = 1)
  expect_identical(predict(fit, S), predict(fit, D))
  ref <- ref_assign(D, fit$selected)
  expect_identical(predict(fit, S)$facility, ref$index)
})
