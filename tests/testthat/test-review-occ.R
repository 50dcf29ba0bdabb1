# Review findings on dpmeans(), ofl(), bpmeans(), their data generators and
# adjusted_rand_index().

expect_arg_error <- function(expr, arg) {
  err <- expect_error(expr, class = "facloc_error_argument")
  expect_identical(err$arg, arg)
  expect_match(conditionMessage(err), sprintf("`%s`", arg), fixed = TRUE)
}

# Run `lines` in a child Rscript with the installed package: a crash there
# fails the test instead of taking the test run down.  Returns the output
# and the exit status.
run_child <- function(lines) {
  lib <- installed_lib()
  if (is.null(lib)) skip("needs the installed package")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c(sprintf("library(facloc, lib.loc = %s)", deparse(lib)), lines), script)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"),
                                  c("--vanilla", script), stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  list(output = out, status = if (is.null(status)) 0L else status)
}

test_that("a lambda whose square overflows is refused by every OCC entry", {
  X <- dp_data(40, d = 2, seed = 1)$X
  for (f in list(dpmeans, ofl, bpmeans)) {
    expect_arg_error(f(X, 1e200), "lambda")
    expect_arg_error(f(X, 1e300, method = "serial"), "lambda")
    expect_arg_error(f(X, 1e200, cl = 2), "lambda")   # refused before starting workers
  }
  # the largest lambda whose square is finite still runs: one cluster
  big <- sqrt(.Machine$double.xmax) * (1 - 1e-15)
  fit <- dpmeans(X, big, threads = 1)
  expect_identical(fit$cluster, rep(1L, 40))
  expect_true(is.finite(fit$objective))
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

test_that("prediction assigns a point whose distances overflow to a cluster", {
  X <- dp_data(40, d = 2, seed = 1)$X
  far <- matrix(1e200, 2, 2)
  for (fit in list(dpmeans(X, 1, threads = 1), ofl(X, 1, seed = 1, threads = 1)))
    expect_identical(predict(fit, far), c(1L, 1L))
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

test_that("a cluster with more workers than rows is refused before it starts", {
  X <- dp_data(30, d = 2, seed = 2)$X
  # testthat 3.1.6 has no local_mocked_bindings()
  started <- get("start_local_cluster", asNamespace("facloc"))
  assignInNamespace("start_local_cluster", function(workers) stop("started workers"), "facloc")
  on.exit(assignInNamespace("start_local_cluster", started, "facloc"))
  for (f in list(dpmeans, ofl, bpmeans)) {
    expect_arg_error(f(X, 1, cl = 31), "cl")
    expect_arg_error(f(X, 1, cl = 1e10), "cl")
  }
})

test_that("counts beyond the integer range are named, not turned into NA", {
  X <- dp_data(30, d = 2, seed = 2)$X
  expect_arg_error(dpmeans(X, 1, threads = 1e10), "threads")
  expect_arg_error(dpmeans(X, 1, batch = 1e10), "batch")
  expect_arg_error(dpmeans(X, 1, max_iter = 1e10), "max_iter")
  expect_arg_error(bpmeans(X, 1, max_iter = 1e10), "max_iter")
})
