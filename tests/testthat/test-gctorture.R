# gctorture checks of the .Call entry points: every allocation in R then
# runs a full garbage collection, so an unprotected object that is still in
# use gets collected and reused, and the result differs or R crashes.
#
# The exported functions are run once on tiny inputs with `.Call` replaced
# by a recorder (in copies of the namespace's functions), which captures the
# exact arguments each entry point gets.  Each recorded call is then
# replayed under gctorture(TRUE) and must return the same value, and every
# call of an entry point without side effects is repeated and must return
# the same value again (uninitialised memory in a result varies).  A new
# entry point that no driver below reaches fails the coverage test: add a
# driver for it.

set.seed(11)
Xg <- rbind(matrix(rnorm(16), 8), matrix(rnorm(16, 3), 8))

record_calls <- function(drivers, X) {
  ns <- asNamespace("facloc")
  recorder <- new.env(parent = ns)
  calls <- list()
  recorder$.Call <- function(.NAME, ...) {
    calls[[length(calls) + 1L]] <<- list(name = .NAME$name, symbol = .NAME, args = list(...))
    base::.Call(.NAME, ...)
  }
  for (name in ls(ns, all.names = TRUE)) {
    f <- get(name, envir = ns)
    if (is.function(f) && !is.primitive(f)) {
      environment(f) <- recorder
      assign(name, f, envir = recorder)
    }
  }
  # Runs on the parallel package's clusters (cl =) step the workers
  # in-process, so that the workers' entry points are recorded too.
  recorder$in_process_cluster <- in_process_cluster
  queues <- list()   # worker p's replies, tagged as the transport tags them
  recorder$node_send <- function(run, p, fun, args) {
    run$seq <- run$seq + 1
    value <- if (identical(fun, recorder$worker_stub))
      recorder$occ_worker(args[[2]], args[[3]], args[[4]]) else do.call(fun, args)
    reply <- list(value = value, tag = paste(run$key, run$seq))
    queues[[p]] <<- c(if (p <= length(queues)) queues[[p]], list(reply))
    NULL
  }
  recorder$node_recv <- function(run, p) {
    reply <- queues[[p]][[1L]]
    queues[[p]] <<- queues[[p]][-1L]
    reply
  }
  failed <- character()
  for (i in seq_along(drivers)) {
    driver <- drivers[[i]]
    environment(driver) <- recorder
    # a driver that fails may stop short of its entry point: reported below
    tryCatch(driver(X), error = function(e)
      failed <<- c(failed, sprintf("driver %d: %s", i, conditionMessage(e))))
  }
  structure(calls, failed = failed)
}

# Tiny runs of every exported function that reaches C.
drivers <- list(
  function(X) facility_greedy(X, 3, mode = "g", threads = 2, sigma = 1, weights = seq_len(16), initial = 2),
  function(X) facility_greedy(X, 3, mode = "c", threads = 2, sigma = 1, verbose = FALSE),
  function(X) facility_greedy(X, 3, mode = "dc", threads = 2, sigma = 1, candidates = X[1:5, ]),
  function(X) facility_greedy(similarity = exp(-as.matrix(dist(X))^2 / 2), k = 3, mode = "dc", threads = 1),
  function(X) facility_greedy(X, 3, mode = "hpc", threads = 2, sigma = 1),
  function(X) facility_greedy(X, 3, mode = "nhpc", threads = 2, sigma = 1),
  function(X) facility_greedy(X, 3, mode = "hc", threads = 1, sigma = 1),
  function(X) facility_greedy(X, 3, mode = "nhpc", threads = 2, sigma = 1,
                              control = facility_control(certify = 3)),
  function(X) facility_objective(X, c(1, 9), sigma = 1, threads = 2),
  function(X) facility_bound(X, c(1, 9), k = 3, sigma = 1, threads = 2, initial = 4),
  function(X) dual_value(facility_problem(X, 1), rep(0.1, nrow(X)), 3, threads = 2),
  function(X) mf_dual_values(facility_problem(X, 1),
                             solver_control(facility_control(), "nhpc", 3L, 1L, FALSE), c(1, 5), 0.5),
  function(X) facloc_threads(),
  function(X) .Call(C_facloc_has_openmp),
  function(X) .Call(C_facloc_tunables),
  function(X) team_policy(),
  function(X) facility_sigma(X, rows = 10),
  function(X) facility_sigma(stats::dist(X), rows = 10),
  function(X) predict(facility_greedy(X, 3, mode = "g", threads = 1, sigma = 1), X[1:4, ] + 0.1, threads = 2),
  function(X) knn_similarity(X, k = 3, sigma = 1, threads = 2),
  function(X) facility_greedy(similarity = knn_similarity(X, k = 3, sigma = 1, threads = 1), k = 2, mode = "dc", threads = 1),
  function(X) facility_pass_time(X, sigma = 1, threads = 1),
  function(X) cosine_similarity(X, X[1:5, ] + 0.5, threads = 2),
  function(X) predict(dpmeans(X, lambda = 1.5, threads = 2, method = "occ", batch = 2), X[1:3, ], threads = 1),
  function(X) dpmeans(X, lambda = 1.5, threads = 1, method = "serial"),
  function(X) predict(ofl(X, lambda = 1.5, threads = 2, seed = 1), X[1:3, ], threads = 1),
  function(X) ofl(X, lambda = 1.5, threads = 1, method = "serial", seed = 1),
  function(X) predict(bpmeans(X, lambda = 1.5, threads = 2, method = "occ", batch = 2), X[1:3, ], threads = 1),
  function(X) bpmeans(X, lambda = 1.5, threads = 1, method = "serial"),
  function(X) dpmeans(X, lambda = 1.5, cl = in_process_cluster(2), batch = 2),
  function(X) ofl(X, lambda = 1.5, cl = in_process_cluster(2), batch = 2, seed = 1),
  function(X) bpmeans(X, lambda = 1.5, cl = in_process_cluster(2), batch = 2)
)

# Two "workers" that record_calls() runs in this process.
in_process_cluster <- function(P) structure(replicate(P, list(), simplify = FALSE),
                                            class = c("SOCKcluster", "cluster"))

comparable <- function(x) {
  if (is.list(x)) {
    # timings, and mode "c"'s evaluations (its threads race to refresh the
    # shared heap), vary from run to run; the answer does not
    drop <- grepl("seconds|time|evaluations", names(x) %||% rep("", length(x)))
    x <- lapply(x[!drop], comparable)
  }
  x
}

`%||%` <- function(a, b) if (is.null(a)) b else a

calls <- record_calls(drivers, Xg)

test_that("every driver runs without error", {
  failed <- attr(calls, "failed")
  expect(length(failed) == 0L, paste(failed, collapse = "\n"))
})

test_that("every registered .Call entry point is reached by a driver", {
  registered <- names(getDLLRegisteredRoutines(getLoadedDLLs()[["facloc"]])$.Call)
  reached <- unique(vapply(calls, `[[`, "", "name"))
  missing <- setdiff(registered, reached)
  expect(length(missing) == 0L,
         sprintf("no gctorture driver reaches %s: add one to test-gctorture.R",
                 paste(missing, collapse = ", ")))
})

test_that("every recorded .Call returns the same value under gctorture", {
  # the first call of each entry point keeps this fast
  keep <- !duplicated(vapply(calls, `[[`, "", "name"))
  for (cl in calls[keep]) {
    expected <- do.call(.Call, c(list(cl$symbol), cl$args))
    gctorture(TRUE)
    got <- tryCatch(do.call(.Call, c(list(cl$symbol), cl$args)),
                    finally = gctorture(FALSE))
    expect_identical(comparable(got), comparable(expected), label = cl$name)
  }
})

test_that("every recorded call of a pure entry point is reproducible", {
  # Uninitialised memory in a result shows up as values that change from
  # run to run.  The workers' steps (facloc_occ_w*) update their state in
  # place, so only the others are repeated.
  for (cl in calls[!startsWith(vapply(calls, `[[`, "", "name"), "facloc_occ_w")]) {
    first <- do.call(.Call, c(list(cl$symbol), cl$args))
    second <- do.call(.Call, c(list(cl$symbol), cl$args))
    expect_identical(comparable(second), comparable(first), label = cl$name)
  }
})
