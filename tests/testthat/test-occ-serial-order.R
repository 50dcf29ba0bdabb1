# OCC runs equal the serial algorithm in their reported order (the
# serializability of Pan et al., 2013), which is the rows' own order, for
# 1, 2 and 3 threads and several batch sizes.

serial_order_data <- function() {
  list(dp = dp_data(400, seed = 11)$X, bp = bp_data(300, seed = 12)$X)
}

expect_same_fit <- function(a, b) {
  for (field in c("cluster", "centers", "Z", "features", "objectives", "iterations"))
    expect_identical(a[[field]], b[[field]], label = field)
}

test_that("OCC DP-means equals its serial order, bit for bit", {
  X <- serial_order_data()$dp
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
  X <- serial_order_data()$dp
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
  X <- serial_order_data()$dp
  fit <- dpmeans(X, lambda = 5, threads = 2, batch = 13, seed = 3)
  expect_same_fit(facloc:::occ_replay(fit, X), fit)
  ord <- serial_order(fit)
  expect_true(all(apply(ord, 2, function(o) all(sort(o) == seq_len(nrow(X))))))
  serial <- dpmeans(X, lambda = 5, method = "serial", order = ord)
  expect_identical(serial$cluster, fit$cluster)
})

test_that("OCC OFL equals its serial order for the same seed", {
  X <- serial_order_data()$dp
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
  X <- serial_order_data()$bp
  for (threads in 1:2) for (batch in c(1, 6, 40)) {
    fit <- bpmeans(X, lambda = 4, threads = threads, batch = batch, max_iter = 30)
    expect_same_fit(facloc:::occ_replay(fit, X), fit)
    serial <- bpmeans(X, lambda = 4, method = "serial", order = serial_order(fit),
                      max_iter = fit$iterations)
    expect_identical(serial$Z, fit$Z)
    expect_equal(serial$features, fit$features, tolerance = 1e-10)
  }
})

test_that("an OCC pass equals the serial pass in row order", {
  # epochs hold consecutive rows and validation lets the points that did not
  # propose meet the centers accepted before them, so OCC gives what
  # method = "serial" gives in the rows' own order, whatever P and batch
  X <- serial_order_data()$dp
  Xb <- serial_order_data()$bp
  dp <- dpmeans(X, lambda = 5, method = "serial")
  of <- ofl(X, lambda = 5, method = "serial", seed = 4)
  bp <- bpmeans(Xb, lambda = 4, method = "serial", max_iter = 30)
  for (threads in 1:3) for (batch in c(1, 9, 50)) {
    fit <- dpmeans(X, lambda = 5, threads = threads, batch = batch)
    expect_identical(serial_order(fit)[, 1], seq_len(nrow(X)))
    expect_identical(fit$cluster, dp$cluster)
    expect_equal(fit$objectives, dp$objectives, tolerance = 1e-12)
    o <- ofl(X, lambda = 5, threads = threads, batch = batch, seed = 4)
    expect_identical(o$facilities, of$facilities)
    expect_identical(o$cluster, of$cluster)
    expect_identical(o$cost, of$cost)
    b <- bpmeans(Xb, lambda = 4, threads = threads, batch = batch, max_iter = 30)
    expect_identical(b$Z, bp$Z)
    expect_equal(b$objectives, bp$objectives, tolerance = 1e-10)
  }
  # epoch 1 of 2 workers with batch 20 is rows 1:40: all propose (no center
  # yet), in row order
  fit <- dpmeans(X, lambda = 5, threads = 2, batch = 20, max_iter = 1)
  expect_identical(fit$proposals$point[1:40], 1:40)
  expect_equal(fit$epochs$proposed[1], 40)
  expect_gt(sum(fit$epochs$rejected), 0)
})

test_that("a worker whose epochs hold no rows changes nothing", {
  # 9 rows, 4 workers, batch 3: worker 4 never gets a row
  X <- dp_data(9, seed = 14)$X
  Xb <- bp_data(9, seed = 14)$X
  expect_identical(dpmeans(X, 1, threads = 4, batch = 3)$cluster,
                   dpmeans(X, 1, method = "serial")$cluster)
  expect_identical(ofl(X, 1, threads = 4, batch = 3, seed = 2)$facilities,
                   ofl(X, 1, method = "serial", seed = 2)$facilities)
  expect_identical(bpmeans(Xb, 1, threads = 4, batch = 3, max_iter = 5)$Z,
                   bpmeans(Xb, 1, method = "serial", max_iter = 5)$Z)
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
