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

# Fails (instead of hanging the run) when `expr` takes over `seconds`.
within_seconds <- function(expr, seconds) {
  setTimeLimit(elapsed = seconds, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf))
  expr
}

test_that("the simulators break many sticks fast and cap theta", {
  sim <- within_seconds(dp_data(20, d = 2, theta = 2e5, seed = 1), 20)
  expect_identical(dim(sim$X), c(20L, 2L))
  expect_lte(max(sim$cluster), 20L)
  bp <- within_seconds(bp_data(20, d = 2, theta = 1000, seed = 1), 20)
  expect_identical(nrow(bp$Z), 20L)
  expect_gt(mean(rowSums(bp$Z)), 500)        # about theta features a point
  expect_arg_error(dp_data(10, theta = 1e300), "theta")
  expect_arg_error(dp_data(10, theta = 1.1e6), "theta")
  expect_arg_error(bp_data(50, theta = 1e6), "theta")
  expect_arg_error(bp_data(50, theta = 1001), "theta")
})

test_that("blocked stick-breaking draws what breaking one at a time did", {
  # the simulators as they were, one rbeta(1) per stick
  dp_one <- function(n, d, theta, sd) {
    u <- runif(n)
    weights <- numeric()
    left <- 1
    while (sum(weights) < max(u)) {
      v <- rbeta(1, 1, theta)
      weights <- c(weights, left * v)
      left <- left * (1 - v)
    }
    stick <- pmin(findInterval(u, cumsum(weights), left.open = TRUE) + 1L, length(weights))
    used <- unique(stick)
    cluster <- match(stick, used)
    centers <- matrix(rnorm(length(used) * d), length(used), d)
    X <- centers[cluster, , drop = FALSE] + matrix(rnorm(n * d, sd = sd), n, d)
    list(X = X, cluster = cluster, centers = centers, weights = weights[used])
  }
  bp_one <- function(n, d, theta, sd) {
    weights <- numeric()
    pi <- 1
    repeat {
      pi <- pi * rbeta(1, theta, 1)
      if (pi < 1e-4) break
      weights <- c(weights, pi)
    }
    K <- length(weights)
    Z <- matrix(as.integer(runif(n * K) < rep(weights, each = n)), n, K)
    features <- matrix(rnorm(K * d), K, d)
    used <- colSums(Z) > 0
    X <- Z[, used, drop = FALSE] %*% features[used, , drop = FALSE] +
      matrix(rnorm(n * d, sd = sd), n, d)
    list(X = X, Z = Z[, used, drop = FALSE], features = features[used, , drop = FALSE],
         weights = weights[used])
  }
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
  for (seed in 1:4) for (theta in c(0.5, 1, 20)) {
    set.seed(seed)
    want <- dp_one(60, 3, theta, 0.5)
    expect_identical(dp_data(60, d = 3, theta = theta, seed = seed), want)
    set.seed(seed)
    want <- bp_one(60, 3, theta, 0.5)
    expect_identical(bp_data(60, d = 3, theta = theta, seed = seed), want)
  }
  # unseeded, they go on from the session's generator as before
  set.seed(9)
  want <- list(dp_one(40, 2, 2, 0.5), bp_one(40, 2, 2, 0.5), runif(2))
  set.seed(9)
  expect_identical(list(dp_data(40, d = 2, theta = 2), bp_data(40, d = 2, theta = 2), runif(2)),
                   want)
})

test_that("adjusted_rand_index() names NA and non-vector labels", {
  expect_arg_error(adjusted_rand_index(c(1, NA, 2, 2), c(1, 1, 2, 2)), "a")
  expect_arg_error(adjusted_rand_index(c(1, 1, 2, 2), c("x", "x", NA, "y")), "b")
  expect_arg_error(adjusted_rand_index(c(1, 1, NaN, 2), c(1, 1, 2, 2)), "a")
  expect_arg_error(adjusted_rand_index(list(1, 1, 2, 2), c(1, 1, 2, 2)), "a")
  expect_arg_error(adjusted_rand_index(c(1, 1, 2, 2), data.frame(x = 1:4)), "b")
  expect_arg_error(adjusted_rand_index(NULL, 1:2), "a")
  expect_arg_error(adjusted_rand_index(b = 1:2), "a")
  expect_identical(adjusted_rand_index(factor(c("u", "u", "v")), c(3L, 3L, 1L)), 1)
})

test_that("every component of an OCC result is documented", {
  man <- test_path("..", "..", "man")
  skip_if_not(dir.exists(man), "needs the source tree's man/")
  # names in the \value section: \item{a, b}{...} and \code{name}
  documented <- function(topic) {
    rd <- paste(readLines(file.path(man, paste0(topic, ".Rd"))), collapse = "\n")
    value <- regmatches(rd, regexpr("\\\\value\\{.*?\\n\\}", rd))
    items <- regmatches(value, gregexpr("\\\\item\\{[^}]*\\}", value))[[1]]
    codes <- regmatches(value, gregexpr("\\\\code\\{[A-Za-z_]+\\}", value))[[1]]
    c(trimws(unlist(strsplit(gsub("^\\\\item\\{|\\}$", "", items), ","))),
      gsub("^\\\\code\\{|\\}$", "", codes))
  }
  common <- documented("dpmeans")
  X <- dp_data(30, d = 2, seed = 1)$X
  cl_only <- c("setup_bytes", "collect_bytes")
  expect_identical(setdiff(c(names(dpmeans(X, 1, seed = 1, threads = 1)), cl_only),
                          common), character())
  expect_identical(setdiff(names(dpmeans(X, 1, method = "serial", order = 30:1)), common),
                  character())
  expect_identical(setdiff(names(ofl(X, 1, seed = 1, threads = 1)),
                          c(common, documented("ofl"))), character())
  expect_identical(setdiff(names(bpmeans(X, 1, seed = 1, threads = 1)),
                          c(common, documented("bpmeans"))), character())
})
