# However a distributed run ends (an interrupt, a time limit, another
# facloc build on the workers), the caller's cluster is left in step: its
# next call gets its own replies and no run block stays on a worker; and
# the workers facloc started are gone when the call returns.

cluster_ok <- can_start_cluster()

# The caller's cluster of two workers, stopped at the end of the test.
local_cluster <- function(env = parent.frame()) {
  cl <- parallel::makePSOCKcluster(2)
  do.call(on.exit, list(substitute(try(parallel::stopCluster(cl), silent = TRUE), list(cl = cl)),
                        add = TRUE), envir = env)
  cl
}

test_that("a time limit during GreeDi is its own error and leaves the cluster in step", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- local_cluster()
  pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
  sabotage(cl, 1:2, "greedy", function() Sys.sleep(1.5))
  X <- dp_data(200, seed = 51)$X
  err <- expect_error(with_time_limit(0.5, facility_greedy(X, 5, threads = 1, cl = cl)),
                      "elapsed time limit")
  expect_false(inherits(err, "facloc_error_cluster"))   # the workers are fine
  # the replies GreeDi was owed were read: the next calls get their own
  expect_identical(unlist(parallel::clusterCall(cl, Sys.getpid)), pids)
  expect_identical(unlist(parallel::clusterCall(cl, function() "next")), c("next", "next"))
})

test_that("a time limit during an OCC run drops its blocks and leaves the cluster in step", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- local_cluster()
  pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
  # worker 1 has stored its block when the limit strikes; worker 2 stores
  # its own after it, and the cleanup must still find it
  sabotage(cl, 2, "init", function() Sys.sleep(1.5))
  X <- dp_data(300, seed = 52)$X
  err <- expect_error(with_time_limit(0.5, dpmeans(X, 5, threads = 1, cl = cl)),
                      "elapsed time limit")
  expect_false(inherits(err, "facloc_error_cluster"))
  expect_identical(unlist(parallel::clusterCall(cl, Sys.getpid)), pids)
  expect_identical(held_blocks(cl), c(0L, 0L))
})

# An interrupt signalled on the way out of the transport's n-th send or
# receive: the windows between a message and the caller's note of it.
interrupt_after <- function(name, n, env = parent.frame()) {
  calls <- 0L
  real <- get(name, envir = asNamespace("facloc"))
  local_facloc_binding(name, function(...) {
    r <- real(...)
    calls <<- calls + 1L
    if (calls == n) stop(interrupt_condition())
    r
  }, env = env)
}

# Just after a reply is read (a hang in the drain would wait for it again)
# or just after a step is sent (its reply would be left for the next call).
for (step in c("recv_data", "send_call")) {
  test_that(sprintf("an interrupt just after %s neither hangs nor leaves replies", step), {
    skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
    cl <- local_cluster()
    pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
    X <- dp_data(300, seed = 53)$X
    interrupt_after(step, 7)
    # the time limit turns a hang in the drain into a failure
    got <- with_time_limit(10, tryCatch(dpmeans(X, 5, threads = 1, batch = 3, cl = cl),
                                        interrupt = function(e) "interrupted"))
    expect_identical(got, "interrupted")
    expect_identical(unlist(parallel::clusterCall(cl, Sys.getpid)), pids)
    expect_identical(held_blocks(cl), c(0L, 0L))
  })
}

test_that("workers facloc started are gone when an interrupted call returns", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  skip_if_not(nzchar(Sys.which("ps")), "no ps to list processes")
  pids <- integer()
  check <- get("check_builds", envir = asNamespace("facloc"))
  # once the workers have said who they are, make their greedy steps long
  # and the call short
  local_facloc_binding("check_builds", function(run) {
    pids <<- vapply(run$info, `[[`, 0L, "pid")
    sabotage(run$cl, seq_along(run$cl), "greedy", function() Sys.sleep(30))
    setTimeLimit(elapsed = 0.5, transient = TRUE)
    check(run)
  })
  on.exit(setTimeLimit(), add = TRUE)
  X <- dp_data(200, seed = 55)$X
  took <- system.time(
    expect_error(facility_greedy(X, 5, threads = 1, cl = 2), "elapsed time limit")
  )[["elapsed"]]
  expect_length(pids, 2)
  expect_lt(took, 10)
  # gone (or a zombie, where nothing reaps the orphans) within a moment,
  # not when their 30 s step ends
  # without the sanitizer's LD_PRELOAD (tools/sanitize.sh): a ps started
  # with AddressSanitizer preloaded once hung in its start-up, on a futex
  running <- function() {
    state <- suppressWarnings(system2("ps", c("-o", "stat=", "-p", paste(pids, collapse = ",")),
                                      stdout = TRUE, env = "LD_PRELOAD="))
    sum(!startsWith(trimws(state), "Z"))
  }
  for (i in 1:40) if (running() > 0) Sys.sleep(0.05)
  expect_identical(running(), 0L)
})

test_that("workers with another facloc build are refused before any data goes out", {
  skip_if_not(cluster_ok, "cannot start a local PSOCK cluster")
  cl <- local_cluster()
  runs <- get(".occ_runs", envir = asNamespace("facloc"))
  mine <- get("build_identity", envir = asNamespace("facloc"))()
  other <- mine
  other$md5[1] <- "00000000000000000000000000000000"
  assign("build", other, envir = runs)    # as if the workers' build were this one's
  on.exit(assign("build", mine, envir = runs), add = TRUE)
  X <- dp_data(100, seed = 56)$X
  err <- expect_error(dpmeans(X, 5, threads = 1, cl = cl), class = "facloc_error_cluster")
  expect_identical(err$worker, 1L)
  expect_false(err$broken)
  expect_match(conditionMessage(err), "another build of facloc")
  expect_error(facility_greedy(X, 3, threads = 1, cl = cl), "another build",
               class = "facloc_error_cluster")
  expect_identical(held_blocks(cl), c(0L, 0L))
  assign("build", mine, envir = runs)
  expect_s3_class(dpmeans(X, 5, threads = 1, cl = cl), "dpmeans")
})
