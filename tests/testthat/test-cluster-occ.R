# OCC runs on a local PSOCK cluster of two workers equal the threaded runs
# with two threads; failures are classed and attributed to their worker.

cluster_ok <- can_start_cluster()

test_that("distributed DP-means, OFL and BP-means equal the threaded OCC runs", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  X <- dp_data(500, seed = 41)$X
  a <- dpmeans(X, 5, threads = 2, batch = 9, seed = 1)
  b <- dpmeans(X, 5, threads = 1, batch = 9, seed = 1, cl = cl)
  for (f in c("cluster", "centers", "objectives", "iterations", "proposals"))
    expect_identical(b[[f]], a[[f]], label = f)
  expect_identical(b$epochs[, 1:5], a$epochs[, 1:5])
  expect_identical(facloc:::occ_replay(b, X)$cluster, b$cluster)
  # the data goes out once; each epoch moves only centers and proposals
  expect_gt(b$setup_bytes, 8 * length(X))
  expect_lt(max(b$epochs$bytes_sent), b$setup_bytes / 10)
  expect_true(all(b$epochs$bytes_received > 0))

  o1 <- ofl(X, 5, threads = 2, batch = 7, seed = 3)
  o2 <- ofl(X, 5, threads = 1, batch = 7, seed = 3, cl = cl)
  for (f in c("cluster", "centers", "objective", "facilities", "cost"))
    expect_identical(o2[[f]], o1[[f]], label = f)

  Xb <- bp_data(250, seed = 42)$X
  p1 <- bpmeans(Xb, 4, threads = 2, batch = 6, max_iter = 20)
  p2 <- bpmeans(Xb, 4, threads = 1, batch = 6, max_iter = 20, cl = cl)
  for (f in c("Z", "features", "objectives"))
    expect_identical(p2[[f]], p1[[f]], label = f)
})

test_that("a number of workers starts a cluster and stops it", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  X <- dp_data(300, seed = 43)$X
  before <- nrow(showConnections())
  fit <- dpmeans(X, 5, threads = 1, batch = 11, cl = 2)
  expect_identical(fit$cluster, dpmeans(X, 5, threads = 2, batch = 11)$cluster)
  expect_equal(nrow(showConnections()), before)     # its sockets are closed
})

test_that("a worker whose epochs hold no rows still gives the serial answer", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  limit <- toupper(Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  skip_if(nzchar(limit) && limit != "FALSE", "R CMD check allows 2 processes")
  # 4 rows, 3 workers, batch 2: worker 1 holds rows 1-2, worker 2 rows 3-4,
  # worker 3 none
  X <- dp_data(4, seed = 44)$X
  d <- dpmeans(X, 1, threads = 1, batch = 2, cl = 3)
  expect_identical(d$cluster, dpmeans(X, 1, method = "serial")$cluster)
  b <- bpmeans(X, 1, threads = 1, batch = 2, cl = 3, max_iter = 5)
  expect_identical(b$Z, bpmeans(X, 1, method = "serial", max_iter = 5)$Z)
})

test_that("a worker that dies mid-run gives a classed error naming it", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- parallel::makePSOCKcluster(2)
  on.exit(try(parallel::stopCluster(cl), silent = TRUE))
  X <- dp_data(300, seed = 44)$X
  sabotage(cl, 2, "partial", function() tools::pskill(Sys.getpid()))
  err <- expect_error(dpmeans(X, 5, threads = 1, cl = cl), class = "facloc_error_cluster")
  expect_identical(err$worker, 2L)
  expect_true(err$broken)
  expect_match(conditionMessage(err), "worker 2 .*broken")
  # the session goes on, its data untouched; the first worker still answers
  expect_equal(dim(X), c(300, 16))
  expect_identical(parallel::clusterCall(cl[1], function() 1 + 1)[[1]], 2)
})

test_that("a worker error is reported and leaves the cluster usable", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  X <- dp_data(300, seed = 45)$X
  sabotage(cl, 1, "epoch", function() stop("disk on fire"))
  err <- expect_error(ofl(X, 5, threads = 1, seed = 1, cl = cl), class = "facloc_error_cluster")
  expect_identical(err$worker, 1L)
  expect_false(err$broken)
  expect_match(conditionMessage(err), "disk on fire")
  # every worker still answers and holds no leftover block
  expect_identical(held_blocks(cl), c(0L, 0L))
  fit <- dpmeans(X, 5, threads = 1, batch = 20, cl = cl[2])
  expect_s3_class(fit, "dpmeans")
})

test_that("bad clusters are refused by name", {
  X <- dp_data(30, d = 2, seed = 1)$X
  empty <- structure(list(), class = c("SOCKcluster", "cluster"))
  expect_arg_error(dpmeans(X, 1, cl = empty), "cl")
  expect_arg_error(dpmeans(X, 1, cl = list(1, 2)), "cl")
  expect_arg_error(dpmeans(X, 1, cl = 2.5), "cl")
  expect_arg_error(dpmeans(X[1, , drop = FALSE], 1, cl = 2), "cl")
})
