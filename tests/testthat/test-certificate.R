# Certificates: `bound` (the online bound, the LP dual B(u) and the cap)
# is an upper bound on the best f over sets of k, checked against brute
# force, against many other sets and against plain-R B(u) and c_j(u).

steps <- c(0, 3, 25)

test_that("the bound is at least the brute-force optimum in every mode", {
  set.seed(43)
  for (case in 1:4) {
    n <- 10 + case
    X <- matrix(rnorm(n * 3), n, 3)
    Y <- if (case %% 2 == 0) matrix(rnorm(9 * 3), 9, 3)
    w <- if (case >= 3) runif(n, 0.2, 3)
    W <- ref_similarity(X, if (is.null(Y)) X else Y, sigma = 0.9)
    a <- if (is.null(w)) rep(1, n) else w
    initial <- if (case == 4) c(2L, 5L) else integer()
    for (k in c(1, 2, 4)) {
      opt <- ref_optimum(W, k, a, initial)
      for (mode in facility_modes()) for (certify in steps) {
        fit <- facility_greedy(X, k, mode = mode, sigma = 0.9, threads = 2, candidates = Y,
                               weights = w, initial = initial,
                               control = facility_control(certify = certify))
        label <- sprintf("case %d, k %d, %s, certify %d", case, k, mode, certify)
        if (mode != "stochastic") expect_true(is.finite(fit$bound), label = label)
        expect_gte(fit$bound, opt * (1 - 1e-12), label = label)
        expect_gte(opt, fit$objective * (1 - 1e-12), label = label)
      }
    }
  }
})

test_that("the bound holds on similarity matrices, dense and sparse", {
  skip_if_not_installed("Matrix")
  set.seed(44)
  n <- 13
  X <- matrix(rnorm(n * 2), n, 2)
  W <- ref_similarity(X, sigma = 0.6)
  W[W < 0.3] <- 0          # a sparse pattern
  S <- Matrix::Matrix(W, sparse = TRUE)
  w <- runif(n, 0.5, 2)
  for (k in 1:3) for (initial in list(integer(), 7L)) {
    opt <- ref_optimum(W, k, w, initial)
    for (sim in list(W, S)) for (mode in facility_modes("exact")) for (certify in steps) {
      fit <- facility_greedy(similarity = sim, k = k, mode = mode, threads = 2, weights = w,
                             initial = initial, control = facility_control(certify = certify))
      expect_gte(fit$bound, opt * (1 - 1e-12))
      expect_true(is.finite(fit$bound_dual))
    }
  }
})

# Swap moves until none improves: a locally optimal set.
local_search <- function(W, S, a) {
  repeat {
    best <- ref_objective(W, S, a)
    moved <- FALSE
    for (p in seq_along(S)) for (j in setdiff(seq_len(ncol(W)), S)) {
      T <- S
      T[p] <- j
      f <- ref_objective(W, T, a)
      if (f > best + 1e-12) { S <- T; best <- f; moved <- TRUE }
    }
    if (!moved) return(S)
  }
}

test_that("the bound is at least f of many random and locally improved sets", {
  set.seed(45)
  X <- rbind(matrix(rnorm(40 * 4), 40, 4), matrix(rnorm(40 * 4, 3), 40, 4))
  a <- runif(80, 0.5, 2)
  W <- ref_similarity(X, sigma = 1.5)
  k <- 6
  others <- replicate(200, sample(80, k), simplify = FALSE)
  others <- c(others, lapply(others[1:5], local_search, W = W, a = a))
  best <- max(vapply(others, function(S) ref_objective(W, S, a), 0))
  for (mode in facility_modes()) {
    fit <- facility_greedy(X, k, mode = mode, sigma = 1.5, weights = a, threads = 2,
                           control = facility_control(certify = 10))
    if (mode == "stochastic") next    # no bound without a matrix
    expect_gte(fit$bound, best, label = mode)
    expect_gte(fit$bound, fit$objective, label = mode)
  }
  # the set found elsewhere: certified by facility_bound(), for its own size
  for (S in others[c(1, 201:205)]) {
    cert <- facility_bound(X, S, sigma = 1.5, weights = a, threads = 2)
    expect_equal(cert$objective, ref_objective(W, S, a), tolerance = 1e-12)
    expect_gte(cert$bound, best)
    expect_lte(cert$bound, cert$bound_online)
    expect_equal(cert$certificate, cert$objective / cert$bound)
  }
})

test_that("B(u) in C equals the plain-R B(u)", {
  set.seed(46)
  n <- 40
  X <- matrix(rnorm(n * 3), n, 3)
  Y <- matrix(rnorm(25 * 3), 25, 3)
  w <- runif(n, 0.1, 2)
  W <- ref_similarity(X, Y, sigma = 1.2)
  for (initial in list(integer(), c(4L, 9L))) {
    problem <- facloc:::facility_problem(X, 1.2, 1L, candidates = Y, weights = w,
                                         initial = initial)
    lo <- if (length(initial)) apply(W[, initial, drop = FALSE], 1, max) else rep(0, n)
    for (trial in 1:5) for (k in c(1, 5, 23)) {
      u <- lo + runif(n, 0, 0.6) * (trial > 1)
      expect_equal(facloc:::dual_value(problem, u, k, threads = 2),
                   ref_dual(W, u, k, w, initial), tolerance = 1e-9)
    }
  }
  skip_if_not_installed("Matrix")
  W[W < 0.2] <- 0
  problem <- facloc:::facility_problem(NULL, 1, 1L, similarity = Matrix::Matrix(W, sparse = TRUE))
  u <- runif(n, 0, 0.5)
  expect_equal(facloc:::dual_value(problem, u, 4), ref_dual(W, u, 4), tolerance = 1e-9)
})

test_that("the matrix-free oracle's c_j never fall below the exact ones", {
  set.seed(47)
  X <- rbind(matrix(rnorm(300 * 4), 300, 4), matrix(rnorm(300 * 4, 5), 300, 4))
  Y <- X[sample(600, 150), ]
  w <- runif(600, 0.2, 2)
  W <- ref_similarity(X, Y, sigma = 1)
  problem <- facloc:::facility_problem(X, 1, 1L, candidates = Y, weights = w)
  sel <- c(3L, 77L, 140L)
  cover <- apply(W[, sel], 1, max)
  for (mode in facility_modes("matrix-free")) for (alpha in c(0, 0.3, 1, 2)) {
    ctrl <- facloc:::solver_control(facility_control(clusters = 4), mode, 5L, 2L, FALSE)
    got <- facloc:::mf_dual_values(problem, ctrl, sel, alpha)
    exact <- ref_gains(W, alpha * cover, w)
    expect_true(all(got >= exact - 1e-9 * max(1, exact)), label = paste(mode, alpha))
    expect_equal(got, exact, tolerance = 1e-9)
  }
})

test_that("more steps never loosen the bound, and the trace ends at it", {
  X <- facility_data("weak_cluster", n = 600)
  for (mode in c("dc", "nhpc")) {
    fits <- lapply(c(0, 5, 20), function(s)
      facility_greedy(X, 15, mode = mode, threads = 2, control = facility_control(certify = s)))
    bounds <- vapply(fits, function(f) f$bound, 0)
    expect_true(all(diff(bounds) <= 0), label = mode)
    expect_identical(fits[[1]]$selected, fits[[3]]$selected)
    tr <- fits[[3]]$trace
    expect_identical(tr$size, 0:15)
    expect_equal(tr$objective[16], fits[[3]]$objective)
    expect_equal(tr$objective[-1], cumsum(fits[[3]]$gains))
    expect_equal(tr$bound[16], fits[[3]]$bound)
    expect_true(all(diff(tr$bound) <= 0))
    expect_true(all(tr$bound >= max(tr$objective) * (1 - 1e-12)))
    dt <- fits[[3]]$dual_trace
    expect_length(dt, 21)
    expect_true(all(diff(dt) <= 0))
  }
  # the dual closes most of the gap the cap leaves
  expect_gt(fits[[3]]$objective / fits[[3]]$bound, 0.9)
})

test_that("beyond 100 picks dc takes the online bound of some rounds, each a bound", {
  # k = 250: every third round's bound (each walks the k largest keys);
  # the rounds between carry the bound known so far
  set.seed(47)
  X <- matrix(rnorm(300 * 3), ncol = 3)
  W <- ref_similarity(X, sigma = 0.5)
  k <- 250L
  fit <- facility_greedy(similarity = W, k = k, mode = "dc", threads = 2,
                         control = facility_control(certify = 0))
  ref <- ref_greedy(W, k)
  expect_identical(fit$selected, ref$selected)
  # f(S_t) + the k largest exact gains: stale keys are at least these
  exact <- vapply(0:(k - 1), function(t) {
    cover <- if (t == 0) numeric(300) else apply(W[, ref$selected[seq_len(t)], drop = FALSE], 1, max)
    sum(cover) + sum(sort(ref_gains(W, cover), decreasing = TRUE)[seq_len(k)])
  }, 0)
  tr <- fit$trace$bound
  expect_true(all(diff(tr) <= 0))
  expect_true(all(tr[1:k] >= cummin(exact) * (1 - 1e-12)))
  expect_lt(tr[k], tr[1])   # taken during the solve, not only at its ends
  expect_true(all(tr >= fit$objective * (1 - 1e-12)))
})

test_that("the exact modes' dual starts at the lowest B among prefixes of the picks", {
  # a narrow kernel: the picks after the first few leave most gains as they
  # were, so B at the coverage of an early prefix S_t is below B at the
  # final coverage; the prefixes tried (t = k/2, k/4, ...) follow from the
  # picks alone, so every exact mode and thread count gives the same bound
  set.seed(48)
  X <- matrix(runif(400 * 2), ncol = 2)
  W <- ref_similarity(X, sigma = 0.03)
  w <- runif(400, 0.5, 2)
  k <- 40L
  ref <- ref_greedy(W, k, w)
  cover_of <- function(t) if (t == 0) numeric(400) else
    apply(W[, ref$selected[seq_len(t)], drop = FALSE], 1, max)
  b_final <- ref_dual(W, cover_of(k), k, w)
  b_prefix <- vapply(c(20, 10, 5), function(t) ref_dual(W, cover_of(t), k, w), 0)
  expect_lt(min(b_prefix), b_final)
  fits <- list()
  for (mode in facility_modes("exact")) for (t in 1:2) {
    fit <- facility_greedy(similarity = W, k = k, mode = mode, threads = t, weights = w,
                           control = facility_control(certify = 1))
    expect_identical(fit$selected, ref$selected)
    expect_lte(fit$dual_trace[1], min(b_prefix) * (1 + 1e-12))   # where the steps start
    expect_lte(fit$bound, fit$dual_trace[1])
    expect_gte(fit$bound, ref$objective)
    fits[[paste(mode, t)]] <- fit
  }
  for (f in fits[-1]) expect_identical(f[c("bound", "bound_dual", "dual_trace")],
                                       fits[[1]][c("bound", "bound_dual", "dual_trace")])
  # without steps the bound is B at the final coverage, as before
  none <- facility_greedy(similarity = W, k = k, mode = "dc", threads = 2, weights = w,
                          control = facility_control(certify = 0))
  expect_equal(none$bound_dual, b_final, tolerance = 1e-12)
})

test_that("a refused step raises u instead, and the bound stays a bound", {
  # a wide kernel (the default sigma) and k = 30: the full step's falls let
  # the picks' own c_j back into the top k, so it is refused; its rises
  # alone lower B (before they did, one step left B at the online bound)
  set.seed(46)
  X <- facility_data("dense", n = 600)
  for (mode in c("dc", "nhpc")) {
    fit <- facility_greedy(X, 30, mode = mode, threads = 2, control = facility_control(certify = 1))
    W <- ref_similarity(X, X, sigma = fit$sigma)
    expect_lt(fit$dual_trace[2], fit$dual_trace[1] * (1 - 1e-3), label = mode)
    expect_equal(fit$bound, min(fit$bound_online, fit$dual_trace[2], fit$bound_cap))
    # above f of the greedy set, and of every set one swap away from it
    best <- ref_objective(W, fit$selected)
    for (out in seq_along(fit$selected)) for (j in sample(setdiff(1:600, fit$selected), 20))
      best <- max(best, ref_objective(W, replace(fit$selected, out, j)))
    expect_gte(fit$bound, best, label = mode)
  }
})

test_that("print and summary state the certificate plainly", {
  X <- facility_data("small", n = 400)
  fit <- facility_greedy(X, 10, mode = "dc", threads = 1)
  ratio <- fit$objective / fit$bound
  line <- sprintf("f(S) / bound = %.3f: no set of 10 does better than %.3f times this one",
                  ratio, 1 / ratio)
  expect_output(print(fit), line, fixed = TRUE)
  expect_output(print(summary(fit)), line, fixed = TRUE)
  expect_output(print(facility_bound(X, fit$selected, threads = 1)), "no set of 10 does better")
  stoch <- facility_greedy(X, 5, mode = "stochastic", threads = 1)
  expect_output(print(stoch), "the bound is only the cap")   # on points
  expect_output(print(stoch), "facility_bound(X, fit) computes one", fixed = TRUE)
  path <- tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  on.exit({ grDevices::dev.off(); unlink(path) })
  expect_invisible(plot(fit))
  expect_invisible(plot(stoch))
})

test_that("certify and facility_bound() reject bad arguments by name", {
  for (bad in list(-1, 1.5, "a", NA, c(1, 2), 2e6))
    expect_arg_error(facility_control(certify = bad), "certify")
  X <- facility_data("small", n = 50)
  expect_arg_error(facility_bound(X, c(1, 1)), "selected")
  expect_arg_error(facility_bound(X, c(1, 60)), "selected")
  expect_arg_error(facility_bound(X, 1:2, initial = 2), "selected")
  expect_arg_error(facility_bound(X, 1:2, k = 0), "k")
  expect_arg_error(facility_bound(X, 1:2, control = list()), "control")
  expect_arg_error(facility_bound(X, 1:2, bogus = 1), "bogus")
})

test_that("facility_bound() certifies the problem a default facility_greedy() solved", {
  # Both default to the median-heuristic sigma; facility_bound() took
  # sigma = 20 and certified another problem (on these data its
  # certificate read 0.893 where the solve's own was 0.986).
  X <- facility_data("small", n = 300)
  fit <- facility_greedy(X, 10, mode = "dc", threads = 1)
  cert <- facility_bound(X, fit$selected, threads = 1)
  expect_equal(cert$objective, fit$objective, tolerance = 1e-12)
  same <- facility_bound(X, fit$selected, sigma = fit$sigma, threads = 1)
  expect_equal(cert$bound, same$bound, tolerance = 1e-12)
  expect_false(isTRUE(all.equal(cert$objective,
                                facility_bound(X, fit$selected, sigma = 20, threads = 1)$objective)))
})

test_that("the matrix-free modes end with the exact final gains", {
  # The last round's online bound is f(S) plus the k largest gains against
  # the final coverage, refreshed exactly (CELF-style) after the solve.
  # Within the default effort (here every candidate: 8 k + 64 >= n)
  # that makes it exact; before, the stale keys of the last round stayed
  # in it, and on these data it read 5.6 to 9 times the exact one.
  X <- facility_data("weak_cluster", n = 200)
  sigma <- 20
  W <- ref_similarity(X, sigma = sigma)
  for (mode in facility_modes("matrix-free")) for (k in c(17L, 30L)) {
    fit <- facility_greedy(X, k, mode = mode, sigma = sigma, threads = 2)
    cover <- apply(W[, fit$selected, drop = FALSE], 1, max)
    g <- ref_gains(W, cover)
    g[fit$selected] <- 0
    online <- ref_objective(W, fit$selected) + sum(sort(g, decreasing = TRUE)[seq_len(k)])
    label <- paste(mode, k)
    # exact up to the single-precision kernel's rounding margins
    expect_lte(fit$bound_online, online * (1 + 1e-4), label = label)
    expect_gte(fit$bound_online, online * (1 - 1e-9), label = label)
    expect_gt(fit$bound_evaluations, 0)
  }
})

test_that("print never presents the cap as a certificate, nor a dual not run", {
  X <- facility_data("medium", n = 3000)
  fit <- facility_greedy(X, 20, mode = "nhpc", sigma = 20, threads = 1)
  expect_equal(fit$bound_cap, 3000)
  expect_true(fit$bound >= fit$bound_cap)   # the default effort stops short here
  out <- capture.output(print(fit))
  expect_true(any(grepl("the bound is only the cap", out, fixed = TRUE)))
  expect_false(any(grepl("no set of 20 does better", out, fixed = TRUE)))
  expect_true(any(grepl("certify = 20", out, fixed = TRUE)))
  sm <- capture.output(print(summary(fit)))
  expect_true(any(grepl("LP dual not run", sm, fixed = TRUE)))
  expect_false(any(grepl("Inf", sm, fixed = TRUE)))
  # with steps the dual reads its value and count, and the certificate is one
  tight <- facility_greedy(X, 20, mode = "nhpc", sigma = 20, threads = 1,
                           control = facility_control(certify = 3))
  expect_lt(tight$bound, tight$bound_cap)
  out <- capture.output(print(summary(tight)))
  expect_true(any(grepl(sprintf("LP dual %.6g after %d step", tight$bound_dual,
                                tight$dual_steps), out, fixed = TRUE)))
  expect_true(any(grepl("no set of 20 does better", out, fixed = TRUE)))
})

test_that("facility_bound() takes a facility_greedy() result and its problem", {
  X <- facility_data("small", n = 300)
  w <- rep(c(1, 3), 150)
  Y <- X[seq(1, 300, by = 3), ]
  fit <- facility_greedy(X, 8, sigma = 5, weights = w, candidates = Y, initial = 4,
                         threads = 1)
  cert <- facility_bound(X, fit, threads = 1)
  same <- facility_bound(X, fit$selected, k = 8, sigma = 5, weights = w, candidates = Y,
                         initial = 4, threads = 1)
  expect_equal(cert$objective, fit$objective, tolerance = 1e-12)
  expect_equal(cert$bound, same$bound)
  expect_identical(cert$k, 8L)
  # a coverage run is certified for the size it reached
  cov <- facility_greedy(X, coverage = 0.8, sigma = 5, threads = 1)
  expect_identical(facility_bound(X, cov, threads = 1)$k, length(cov$selected))
})

test_that("the default effort stops its LP-dual steps once f(S) / bound reaches 0.99", {
  # quakes at the median heuristic: the online bound alone proves 0.99, so
  # the default takes no step; certify = 5 takes them all, on the same picks
  Q <- as.matrix(quakes[c("long", "lat")])
  fit <- facility_greedy(Q, 30, mode = "dc", threads = 1)
  full <- facility_greedy(Q, 30, mode = "dc", threads = 1, control = facility_control(certify = 5))
  expect_identical(fit$selected, full$selected)
  expect_gte(fit$objective / fit$dual_trace[1], 0.99)
  expect_identical(fit$dual_steps, 0L)
  expect_true(all(fit$dual_trace == fit$dual_trace[1]))
  expect_gt(full$dual_steps, 0L)
  expect_lt(full$bound, fit$bound)
  expect_identical(full$dual_trace[1], fit$dual_trace[1])
  # where no step reaches 0.99 the default takes all five, as certify = 5
  X <- facility_data("medium", n = 1500)
  fit <- facility_greedy(X, 30, mode = "dc", threads = 1, sigma = 20)
  full <- facility_greedy(X, 30, mode = "dc", threads = 1, sigma = 20,
                          control = facility_control(certify = 5))
  expect_lt(fit$objective / fit$bound, 0.99)
  expect_identical(fit[c("bound", "dual_trace", "dual_steps")],
                   full[c("bound", "dual_trace", "dual_steps")])
  # facility_bound() runs the steps it is given, past 0.99
  cert <- facility_bound(Q, facility_greedy(Q, 30, mode = "dc", threads = 1), threads = 1)
  expect_gt(cert$dual_steps, 0L)
  expect_lt(cert$bound, cert$bound_online)
})
