# The relaxed modes at the kernel widths users get (the median heuristic
# and wider), on data the package did not generate, against the plain-R
# greedy of helper-reference.R.

# Each pick's true marginal gain and the best true gain among the
# candidates still open at that step.
true_gains <- function(W, selected) {
  cover <- rep(0, nrow(W))
  open <- rep(TRUE, ncol(W))
  pick <- best <- numeric(length(selected))
  for (t in seq_along(selected)) {
    g <- ref_gains(W, cover)
    best[t] <- max(g[open])
    pick[t] <- g[selected[t]]
    open[selected[t]] <- FALSE
    cover <- pmax(cover, W[, selected[t]])
  }
  list(pick = pick, best = best)
}

expect_no_idle_pick <- function(W, fit, label) {
  g <- true_gains(W, fit$selected)
  idle <- g$pick <= 0 & g$best > 0
  expect_false(any(idle), label = paste(label, "has a pick of zero gain while others gain"))
}

test_that("quakes (long, lat), k = 50, default sigma: the relaxed modes match greedy", {
  Q <- as.matrix(datasets::quakes[c("long", "lat")])
  sigma <- facility_sigma(Q)
  W <- ref_similarity(Q, sigma = sigma)
  ref <- ref_greedy(W, 50)
  for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
    fit <- facility_greedy(Q, 50, mode = mode, threads = threads)
    label <- paste(mode, threads)
    expect_equal(fit$sigma, sigma)
    expect_gte(fit$objective, 0.999 * ref$objective, label = label)
    expect_no_idle_pick(W, fit, label)
    # before pruning was bounded, picks 16 to 50 were rows 1, 2, 3, ...
    expect_false(all(fit$selected[21:30] == sort(fit$selected[21:30])) &&
                   max(fit$selected[21:30]) <= 40, label = label)
  }
})

test_that("a kernel wide enough to cover every client above 0.9 keeps greedy's quality", {
  # trees (girth, height, volume) scaled, at four times the median
  # heuristic: after three picks every client is covered above 0.9, where
  # unbounded coverage pruning at tau = 0.9 emptied every evaluation.
  X <- scale(as.matrix(rbind(datasets::trees, datasets::trees + 0.5, datasets::trees - 0.5)))
  sigma <- 4 * facility_sigma(X)
  W <- ref_similarity(X, sigma = sigma)
  ref <- ref_greedy(W, 20)
  expect_gt(min(apply(W[, ref$selected[1:3]], 1, max)), 0.9)
  for (mode in c("hpc", "nhpc")) for (threads in 1:2) {
    fit <- facility_greedy(X, 20, mode = mode, sigma = sigma, threads = threads)
    label <- paste(mode, threads)
    expect_gte(fit$objective, 0.9995 * ref$objective, label = label)
    expect_no_idle_pick(W, fit, label)
  }
})

test_that("pruning is bounded: tau changes no pick where the bound forbids it", {
  # With pruning bounded by eps / 50 of each pick's gain, tau = 0.5 (which
  # would prune almost every client here) gives the picks of tau = 1 on a
  # wide kernel, and eps = 0 turns pruning off altogether.
  X <- as.matrix(datasets::faithful)
  sigma <- 2 * facility_sigma(X)
  for (mode in c("hpc", "nhpc")) {
    loose <- facility_greedy(X, 30, mode = mode, sigma = sigma,
                             control = facility_control(tau = 0.5))
    none <- facility_greedy(X, 30, mode = mode, sigma = sigma,
                            control = facility_control(tau = 1))
    expect_gte(loose$objective, (1 - 1e-3) * none$objective, label = mode)
    exact <- facility_greedy(X, 30, mode = mode, sigma = sigma,
                             control = facility_control(batch = 1, eps = 0, tau = 0.5))
    g <- facility_greedy(X, 30, mode = "g", sigma = sigma)
    expect_identical(exact$selected, g$selected, label = mode)
  }
})

test_that("R's own data at five kernel widths: every relaxed cell within 0.1% of greedy", {
  # A fast subset of inst/bench/quality-sweep.R: data shipped with R, not
  # standardised (a user's default call), sigma from a tenth to twice the
  # median heuristic.  FL_PRUNE_SHARE and FL_CONTEST were set from the 0.1%
  # target, not tuned on these data.
  sets <- list(faithful = datasets::faithful, iris = datasets::iris[1:4],
               airquality = stats::na.omit(datasets::airquality),
               morley = datasets::morley, beaver2 = datasets::beaver2,
               ChickWeight = as.data.frame(datasets::ChickWeight)[c("weight", "Time")])
  for (name in names(sets)) {
    X <- as.matrix(sets[[name]])
    for (mult in c(0.1, 0.5, 2)) {
      sigma <- mult * facility_sigma(X)
      W <- ref_similarity(X, sigma = sigma)
      ref <- ref_greedy(W, 20)
      for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
        fit <- facility_greedy(X, 20, mode = mode, sigma = sigma, threads = threads)
        label <- paste(name, mult, mode, threads)
        expect_gte(fit$objective, 0.999 * ref$objective, label = label)
        expect_no_idle_pick(W, fit, label)
      }
    }
  }
})

test_that("no pick of zero gain while a distinct value is left (k past the distinct rows)", {
  # faithful's waiting times: 272 rows, 51 distinct values.  The first 51
  # picks must cover the 51 values; a coarse key reading 0 for one of them
  # (MASS::quine's Days in inst/bench/quality-sweep.R) had let a repeated
  # value in first.
  X <- as.matrix(datasets::faithful["waiting"])
  values <- length(unique(X[, 1]))
  for (mult in c(0.1, 1)) {
    sigma <- mult * facility_sigma(X)
    for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
      fit <- facility_greedy(X, values + 1, mode = mode, sigma = sigma, threads = threads)
      label <- paste(mult, mode, threads)
      expect_equal(length(unique(X[fit$selected[seq_len(values)], 1])), values, label = label)
      expect_equal(fit$objective, nrow(X), tolerance = 1e-12, label = label)
    }
  }
})

test_that("past the distinct points, jittered duplicates are taken by their true gains", {
  # 12 points of R^3, each 25 times with 1e-6 jitter: after 12 picks every
  # gain is below 1e-11 of the first, under the single-precision kernel's
  # resolution, where the relaxed modes picked candidates gaining 0.6% of
  # the best.  Their exact tail now evaluates in double precision.
  set.seed(2)
  P <- matrix(stats::rnorm(12 * 3), 12, 3)
  X <- P[rep(1:12, each = 25), ] + matrix(stats::rnorm(300 * 3, sd = 1e-6), 300, 3)
  for (mult in c(0.25, 1)) {
    sigma <- mult * facility_sigma(X)
    W <- ref_similarity(X, sigma = sigma)
    for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
      fit <- facility_greedy(X, 40, mode = mode, sigma = sigma, threads = threads)
      g <- true_gains(W, fit$selected)
      label <- paste(mult, mode, threads)
      expect_lt(max(g$best[13:40]), 1e-10 * g$best[1], label = label)
      expect_gte(min(g$pick / g$best), 0.99, label = label)
    }
  }
})

test_that("the near-point test skips no leaf whose bound is large (survival::pbc)", {
  # pbc's 19 numeric columns (276 complete rows) at a quarter of the median
  # heuristic: the near-point test, an estimate, skipped leaves that held
  # the best candidate's gain, and every relaxed mode ended 0.9978 of
  # greedy.  It now keeps any leaf bounded above FL_DROP_CAP times the skip
  # threshold, the rule of the gain estimate, which was chosen on the
  # presets.
  skip_if_not_installed("survival")
  data_env <- new.env()
  utils::data("pbc", package = "survival", envir = data_env)
  pbc <- data_env$pbc
  X <- as.matrix(stats::na.omit(pbc[vapply(pbc, is.numeric, TRUE)]))
  sigma <- 0.25 * facility_sigma(X)
  W <- ref_similarity(X, sigma = sigma)
  ref <- ref_greedy(W, 100)
  for (mode in facility_modes("matrix-free")) {
    fit <- facility_greedy(X, 100, mode = mode, sigma = sigma, threads = 2)
    expect_gte(fit$objective, 0.999 * ref$objective, label = mode)
  }
})

test_that("heavy tails at twice the median sigma: no mode keeps a far outlier waiting", {
  # multivariate t with 1.5 degrees of freedom in R^8: a few clients lie
  # tens of spreads out, and coarse gains taken from estimates keyed such
  # outliers far below their gains; hc then stayed 0.3% below greedy
  # before the loose contest (mf_contest.c) checked the candidates whose
  # certified bounds most exceed the pick's gain
  set.seed(1)
  n <- 1500
  X <- matrix(stats::rnorm(n * 8), n) / sqrt(stats::rchisq(n, 1.5) / 1.5)
  sigma <- 2 * facility_sigma(X)
  W <- ref_similarity(X, sigma = sigma)
  ref <- ref_greedy(W, 100)
  for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
    fit <- facility_greedy(X, 100, mode = mode, sigma = sigma, threads = threads)
    label <- paste(mode, threads)
    expect_gte(fit$objective, 0.999 * ref$objective, label = label)
    expect_no_idle_pick(W, fit, label)
  }
})

test_that("a wide kernel's first pick comes from bounds: few evaluations, greedy's picks", {
  # quakes, all five columns scaled: at the median heuristic the chord
  # bounds on the first gains leave few candidates that could be the first
  # pick, so few are evaluated before it; at a tenth of it the first pick
  # covers a few percent of the weight, and every candidate is evaluated
  # first, as before.
  Q <- scale(as.matrix(datasets::quakes))
  n <- nrow(Q)
  for (mult in c(1, 0.1)) {
    sigma <- mult * facility_sigma(Q)
    W <- ref_similarity(Q, sigma = sigma)
    ref <- ref_greedy(W, 20)
    for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
      label <- paste(mode, threads, "sigma x", mult)
      one <- facility_greedy(Q, 1, mode = mode, sigma = sigma, threads = threads)
      expect_identical(one$selected, ref$selected[1], label = label)
      if (mult == 1) expect_lt(one$evaluations, n / 4, label = label)
      else expect_gt(one$evaluations, n, label = label)
      fit <- facility_greedy(Q, 20, mode = mode, sigma = sigma, threads = threads)
      expect_gte(fit$objective, 0.9995 * ref$objective, label = label)
      expect_no_idle_pick(W, fit, label)
    }
  }
})

test_that("bounded first gains with weights and candidates apart", {
  # The bounds weigh each client by its weight: heavy clients far from the
  # unweighted density's peak move the first pick there.
  X <- scale(as.matrix(datasets::faithful))
  w <- ifelse(X[, 1] > 1, 20, 1)
  cand <- X[seq(1, nrow(X), by = 3), ]
  sigma <- facility_sigma(X)
  W <- ref_similarity(X, cand, sigma = sigma)
  ref <- ref_greedy(W, 10, weights = w)
  for (mode in facility_modes("matrix-free")) for (threads in 1:2) {
    label <- paste(mode, threads)
    fit <- facility_greedy(X, 10, mode = mode, candidates = cand, weights = w,
                           sigma = sigma, threads = threads)
    expect_identical(fit$selected[1], as.integer(ref$selected[1]), label = label)
    expect_gte(fit$objective, 0.9995 * ref$objective, label = label)
  }
})
