# OCC runs equal the serial algorithm in their reported order (the
# serializability of Pan et al., 2013), for 1 and 2 threads and several
# batch sizes.

occ_data <- function() {
  list(dp = dp_data(400, seed = 11)$X, bp = bp_data(300, seed = 12)$X)
}

expect_same_fit <- function(a, b) {
  for (field in c("cluster", "centers", "Z", "features", "objectives", "iterations"))
    expect_identical(a[[field]], b[[field]], label = field)
}

test_that("OCC DP-means equals its serial order, bit for bit", {
  X <- occ_data()$dp
  for (threads in 1:2) for (batch in c(1, 7, 50, 400)) {
    fit <- dpmeans(X, lambda = 5, threads = threads, batch = batch)
    expect_same_fit(facloc:::occ_replay(fit, X), fit)
    serial <- dpmeans(X, lambda = 5, method = "serial", order = serial_order(fit))
    expect_identical(serial$cluster, fit$cluster)
    expect_equal(serial$centers, fit$centers, tolerance = 1e-12)
    expect_equal(serial$objectives, fit$objectives, tolerance = 1e-12)
  }
})

test_that("the OCC result depends on the workers, not on the threads", {
  X <- occ_data()$dp
  a <- dpmeans(X, lambda = 5, threads = 2, batch = 9)
  expect_gt(sum(a$epochs$rejected), 0)      # the epochs really conflicted
  expect_equal(a$workers, 2L)
  # two workers run by one thread: the same epochs, hence the same bits
  b <- facloc:::occ_call("dpmeans", X, 5, serial = FALSE, workers = 2L, batch = 9L,
                         order = NULL, shards = 2L, threads = 1L, max_iter = 100L,
                         what = "test")
  expect_identical(b$cluster, a$cluster)
  expect_identical(b$trace$objective, a$objectives)
})

test_that("a seeded visiting order is replayed too", {
  X <- occ_data()$dp
  fit <- dpmeans(X, lambda = 5, threads = 2, batch = 13, seed = 3)
  expect_same_fit(facloc:::occ_replay(fit, X), fit)
  ord <- serial_order(fit)
  expect_true(all(apply(ord, 2, function(o) all(sort(o) == seq_len(nrow(X))))))
  serial <- dpmeans(X, lambda = 5, method = "serial", order = ord)
  expect_identical(serial$cluster, fit$cluster)
})

test_that("OCC OFL equals its serial order for the same seed", {
  X <- occ_data()$dp
  for (threads in 1:2) for (batch in c(1, 5, 60)) {
    fit <- ofl(X, lambda = 5, threads = threads, batch = batch, seed = 4)
    serial <- ofl(X, lambda = 5, method = "serial", order = serial_order(fit), seed = 4)
    expect_identical(serial$cluster, fit$cluster)
    expect_identical(serial$centers, fit$centers)
    expect_identical(serial$facilities, fit$facilities)
    expect_equal(serial$objective, fit$objective, tolerance = 1e-12)
    expect_same_fit(facloc:::occ_replay(fit, X), fit)
  }
})

test_that("OCC BP-means equals its serial order", {
  X <- occ_data()$bp
  for (threads in 1:2) for (batch in c(1, 6, 40)) {
    fit <- bpmeans(X, lambda = 4, threads = threads, batch = batch, max_iter = 30)
    expect_same_fit(facloc:::occ_replay(fit, X), fit)
    serial <- bpmeans(X, lambda = 4, method = "serial", order = serial_order(fit),
                      max_iter = fit$iterations)
    expect_identical(serial$Z, fit$Z)
    expect_equal(serial$features, fit$features, tolerance = 1e-10)
  }
})

test_that("the serial order puts each epoch's proposers after its other points", {
  X <- occ_data()$dp
  fit <- dpmeans(X, lambda = 5, threads = 2, batch = 20, max_iter = 1)
  ord <- serial_order(fit)[, 1]
  first <- fit$proposals$point[fit$proposals$iteration == 1]
  # epoch 1 holds rows 1:20 and 201:220; all of them propose (no center yet)
  expect_setequal(ord[1:40], c(1:20, 201:220))
  expect_identical(ord[1:40], c(1:20, 201:220))
  expect_identical(first[1:40], c(1:20, 201:220))
  expect_equal(fit$epochs$proposed[1], 40)
})

test_that("runs large enough to use the threads give the same bits at 1 and 2", {
  # loops over fewer than 4096 points run on one thread (OCC_PAR_MIN)
  X <- dp_data(6000, d = 8, seed = 13)$X
  two <- dpmeans(X, lambda = 4, threads = 2, batch = 1500, max_iter = 5)
  one <- facloc:::occ_call("dpmeans", X, 4, serial = FALSE, workers = 2L, batch = 1500L,
                           order = NULL, shards = 2L, threads = 1L, max_iter = 5L,
                           what = "test")
  expect_identical(one$cluster, two$cluster)
  expect_identical(one$trace$objective, two$objectives)
  expect_same_fit(facloc:::occ_replay(two, X), two)
  b <- bpmeans(X, lambda = 4, threads = 2, batch = 2500, max_iter = 4)
  expect_same_fit(facloc:::occ_replay(b, X), b)
  o <- ofl(X, lambda = 4, threads = 2, batch = 2500, seed = 1)
  expect_same_fit(facloc:::occ_replay(o, X), o)
})
