# DP-means, OFL and BP-means against plain-R references and the properties
# the issue asks for; the C engines on extreme lambda and thread counts.

ref_dpmeans <- function(X, lambda, max_iter = 100) {
  n <- nrow(X)
  centers <- X[0, , drop = FALSE]
  z <- rep(0L, n)
  objectives <- numeric()
  for (it in seq_len(max_iter)) {
    old <- z
    for (i in seq_len(n)) {
      d2 <- if (nrow(centers)) colSums((t(centers) - X[i, ])^2) else numeric()
      if (!length(d2) || min(d2) > lambda^2) {
        centers <- rbind(centers, X[i, ])
        z[i] <- nrow(centers)
      } else z[i] <- which.min(d2)
    }
    used <- sort(unique(z))
    z <- match(z, used)
    centers <- rowsum(X, z, reorder = TRUE) / as.vector(table(z))
    objectives <- c(objectives, sum((X - centers[z, ])^2) + lambda^2 * nrow(centers))
    if (identical(match(old, used), z)) break
  }
  list(cluster = z, centers = unname(centers), objectives = objectives)
}

ref_ofl <- function(X, lambda, u) {
  fac <- integer()
  z <- integer(nrow(X))
  cost <- numeric(nrow(X))
  for (i in seq_len(nrow(X))) {
    d2 <- if (length(fac)) colSums((t(X[fac, , drop = FALSE]) - X[i, ])^2) else Inf
    if (u[i] < min(d2) / lambda^2) {
      fac <- c(fac, i)
      z[i] <- length(fac)
    } else {
      z[i] <- which.min(d2)
      cost[i] <- min(d2)
    }
  }
  list(cluster = z, facilities = fac, objective = sum(cost) + lambda^2 * length(fac))
}

test_that("serial DP-means matches a plain-R DP-means", {
  X <- dp_data(150, d = 4, seed = 21)$X
  fit <- dpmeans(X, lambda = 2.5, method = "serial", threads = 1)
  ref <- ref_dpmeans(X, 2.5)
  expect_identical(fit$cluster, ref$cluster)
  expect_equal(fit$centers, ref$centers, tolerance = 1e-10)
  # the reference stops one pass later (after an unchanged pass it is done)
  expect_equal(fit$objectives, ref$objectives[seq_along(fit$objectives)], tolerance = 1e-10)
})

test_that("serial OFL matches a plain-R Meyerson pass", {
  X <- dp_data(200, d = 3, seed = 22)$X
  fit <- ofl(X, lambda = 2, method = "serial", seed = 9)
  ref <- ref_ofl(X, 2, fit$uniforms)
  expect_identical(fit$cluster, ref$cluster)
  expect_identical(fit$facilities, ref$facilities)
  expect_equal(fit$objective, ref$objective, tolerance = 1e-10)
  expect_equal(fit$centers, X[ref$facilities, ], tolerance = 0, ignore_attr = TRUE)
})

test_that("OCC DP-means recovers well separated clusters", {
  # lambda = 5, not 1: in d = 16 with sd 1/2 points of one cluster are ~2.8
  # apart, so lambda = 1 opens a cluster per point (see ?dp_data)
  sim <- dp_data(800, seed = 23)
  fit <- dpmeans(sim$X, lambda = 5, threads = 2)
  expect_gt(adjusted_rand_index(fit$cluster, sim$cluster), 0.9)
  expect_true(fit$converged)
})

test_that("DP-means and BP-means objectives never increase", {
  X <- dp_data(300, seed = 24)$X
  for (method in c("serial", "occ")) {
    o <- dpmeans(X, lambda = 3, method = method, threads = 2, batch = 5)$objectives
    expect_true(all(diff(o) <= 1e-9 * abs(o[-1])))
  }
  Xb <- bp_data(300, seed = 25)$X
  for (method in c("serial", "occ")) {
    o <- bpmeans(Xb, lambda = 3, method = method, threads = 2, batch = 5,
                 max_iter = 40)$objectives
    expect_true(all(diff(o) <= 1e-9 * abs(o[-1])))
  }
})

test_that("BP-means objective is ||X - ZA||^2 + lambda^2 K", {
  sim <- bp_data(200, seed = 26)
  fit <- bpmeans(sim$X, lambda = 4, threads = 2)
  K <- ncol(fit$Z)
  expect_equal(nrow(fit$features), K)
  expect_true(all(fit$Z %in% 0:1) && all(colSums(fit$Z) > 0))
  expect_equal(fit$objective, sum((sim$X - fit$Z %*% fit$features)^2) + 16 * K,
               tolerance = 1e-8)
  # the features solve the least-squares problem for Z
  A <- qr.coef(qr(fit$Z), sim$X)
  expect_equal(sum((sim$X - fit$Z %*% fit$features)^2), sum((sim$X - fit$Z %*% A)^2),
               tolerance = 1e-8)
})

test_that("DP-means objective is the sum of squares plus lambda^2 K", {
  X <- dp_data(200, seed = 27)$X
  fit <- dpmeans(X, lambda = 5, threads = 2)
  expect_equal(fit$objective,
               sum((X - fit$centers[fit$cluster, ])^2) + 25 * nrow(fit$centers))
  expect_equal(unname(fit$centers), unname(rowsum(X, fit$cluster) / fit$size))
})

test_that("adjusted_rand_index matches the formula on a known table", {
  expect_equal(adjusted_rand_index(c(1, 1, 2, 2), c(2, 2, 1, 1)), 1)
  # Hubert and Arabie's index for this small case, computed by hand
  a <- c(1, 1, 1, 2, 2, 2)
  b <- c(1, 1, 2, 2, 3, 3)
  # pairs: together in both = 2, in a = 6, in b = 3, total 15
  expect_equal(adjusted_rand_index(a, b), (2 - 6 * 3 / 15) / ((6 + 3) / 2 - 6 * 3 / 15))
})

test_that("the C engines open a cluster for a point with no center at all", {
  # lambda^2 = Inf reached the engines before the R check: a point with no
  # center stayed in cluster -1, and DP-means wrote before its tallies
  res <- run_child(c(
    "X <- dp_data(300, seed = 1)$X",
    "for (serial in c(FALSE, TRUE)) {",
    "  d <- facloc:::occ_call('dpmeans', X, 1e200, serial = serial, workers = 2L,",
    "                         batch = 5L, order = NULL, shards = 2L, threads = 1L,",
    "                         max_iter = 3L, what = 'test')",
    "  o <- facloc:::occ_call('ofl', X, 1e200, serial = serial, workers = 2L,",
    "                         batch = 5L, order = NULL, shards = 2L, threads = 1L,",
    "                         max_iter = 1L, u = runif(300), what = 'test')",
    "  cat('DP', range(d$cluster), nrow(d$centers), '\\n')",
    "  cat('OFL', range(o$cluster), nrow(o$centers), o$facility, '\\n')",
    "}"))
  expect_identical(res$status, 0L)
  expect_identical(sum(grepl("^DP 1 1 1 $", res$output)), 2L)
  expect_identical(sum(grepl("^OFL 1 1 1 1 $", res$output)), 2L)
})

test_that("OCC workers are capped at the rows, with the answer of one per row", {
  X <- dp_data(30, d = 2, seed = 2)$X
  Xb <- bp_data(30, d = 2, seed = 2)$X
  for (threads in c(1e5, 1e9)) {
    d <- dpmeans(X, 1, threads = threads)
    expect_identical(d$workers, 30L)
    expect_identical(d$cluster, dpmeans(X, 1, threads = 30)$cluster)
    o <- ofl(X, 1, threads = threads, seed = 3)
    expect_identical(o$workers, 30L)
    expect_identical(o$facilities, ofl(X, 1, threads = 30, seed = 3)$facilities)
    b <- bpmeans(Xb, 1, threads = threads, max_iter = 5)
    expect_identical(b$workers, 30L)
    expect_identical(b$Z, bpmeans(Xb, 1, threads = 30, max_iter = 5)$Z)
  }
  expect_identical(dpmeans(X, 1, threads = 7)$workers, 7L)
})
