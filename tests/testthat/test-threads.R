# Threads: the same answer on every run and, for the exact modes, for every
# number of threads; requests above the cores are capped; the environment
# variables that limit threads are honoured.

set.seed(7)
Xt <- rbind(matrix(rnorm(150, 0, 1), 50), matrix(rnorm(150, 4, 1), 50),
            matrix(rep(c(2, 2, 2), each = 20), 20))   # 20 identical points: ties
sigma_t <- 1.5

# Run the solver through its .Call entry with any thread count: the R
# wrapper caps `threads` at the cores, this does not, so 5 threads on a
# 2-core machine really oversubscribes.
solve_raw <- function(X, k, mode, threads, control = facility_control()) {
  problem <- facility_problem(X, sigma_t)
  ctrl <- solver_control(control, mode, k, threads, FALSE)
  out <- .Call(C_facloc_solve, problem, ctrl)
  check_status(out$status)
  out
}

test_that("repeated runs give identical results", {
  for (mode in facility_modes("exact")) {
    first <- facility_greedy(Xt, 15, mode = mode, threads = 2, sigma = sigma_t)
    for (rep in 1:3) {
      again <- facility_greedy(Xt, 15, mode = mode, threads = 2, sigma = sigma_t)
      expect_identical(again$selected, first$selected)
      expect_identical(again$gains, first$gains)
      expect_identical(again$objective, first$objective)
      expect_identical(again$bound, first$bound)
    }
  }
})

test_that("mode c's bound is f(S) plus the k largest gains left, whatever the threads' race", {
  # The keys a shared heap is left with depend on which stale tops the
  # racing threads evaluated; the bound must not.
  W <- ref_similarity(Xt, sigma = sigma_t)
  k <- 15
  top_gains <- function(g) sum(sort(g, decreasing = TRUE)[seq_len(k)])
  for (threads in unique(c(1, 2, available_cores() + 3))) {
    # without the LP dual's steps: the online bound, its last round refreshed
    fit <- solve_raw(Xt, k, "c", threads, facility_control(certify = 0))
    cover <- apply(W[, fit$selected, drop = FALSE], 1, max)
    left <- ref_gains(W, cover)[-fit$selected]
    expected <- min(nrow(W), top_gains(ref_gains(W, rep(0, nrow(W)))), fit$objective + top_gains(left))
    expect_equal(fit$bound, expected, tolerance = 1e-12, label = sprintf("%d threads", threads))
    # the steps start there and only go down, the same way whatever the race
    dual <- solve_raw(Xt, k, "c", threads)
    expect_lte(dual$bound, expected * (1 + 1e-12))
    if (threads == 1) first <- dual$bound
    expect_identical(dual$bound, first, label = sprintf("%d threads", threads))
  }
})

test_that("exact modes are identical over 1, 2 and more threads than cores", {
  cores <- available_cores()
  ref <- ref_greedy(ref_similarity(Xt, sigma = sigma_t), 15)
  base <- solve_raw(Xt, 15, "g", 1)
  expect_identical(base$selected, as.integer(ref$selected))
  for (mode in facility_modes("exact")) for (threads in unique(c(1, 2, cores + 3))) {
    out <- solve_raw(Xt, 15, mode, threads)
    label <- sprintf("mode %s, %d threads", mode, threads)
    expect_identical(out$selected, base$selected, label = label)
    expect_identical(out$gains, base$gains, label = label)
    expect_identical(out$objective, base$objective, label = label)
  }
})

test_that("threads above the available cores are accepted and capped", {
  cap <- thread_cap()
  fit <- facility_greedy(Xt, 5, mode = "dc", threads = cap + 50, sigma = sigma_t)
  expect_identical(fit$threads, cap)
  expect_identical(resolve_threads(10^6), cap)
  expect_identical(resolve_threads(1), 1L)
})

test_that("the cap is documented in ?facloc_threads", {
  rd <- test_path("..", "..", "man", "facloc_threads.Rd")
  skip_if_not(file.exists(rd), "sources of the help pages not available")
  text <- paste(readLines(rd), collapse = " ")
  expect_match(text, "capped", fixed = TRUE)
  expect_match(text, "OMP_THREAD_LIMIT", fixed = TRUE)
  expect_match(text, "OMP_NUM_THREADS", fixed = TRUE)
  expect_match(text, "_R_CHECK_LIMIT_CORES_", fixed = TRUE)
  expect_match(text, "mclapply", fixed = TRUE)        # one thread in forked children
  expect_match(text, "OMP_WAIT_POLICY", fixed = TRUE) # how to share the cores
})

# Set environment variables until the calling test ends (withr's
# local_envvar, without the dependency).
local_env <- function(vars, frame = parent.frame()) {
  old <- Sys.getenv(names(vars), unset = NA, names = TRUE)
  do.call(Sys.setenv, as.list(vars))
  restore <- function() {
    set <- !is.na(old)
    if (any(set)) do.call(Sys.setenv, as.list(old[set]))
    if (any(!set)) Sys.unsetenv(names(old)[!set])
  }
  do.call(on.exit, list(bquote(.(restore)()), add = TRUE, after = FALSE), envir = frame)
}

test_that("OMP_THREAD_LIMIT caps the default and every request", {
  old <- facloc_threads(NULL)
  on.exit(facloc_threads(old), add = TRUE)
  local_env(c(OMP_THREAD_LIMIT = "1", OMP_NUM_THREADS = ""))
  expect_identical(facloc_threads(), 1L)
  expect_identical(resolve_threads(4), 1L)
  fit <- facility_greedy(Xt, 3, mode = "c", threads = 2, sigma = sigma_t)
  expect_identical(fit$threads, 1L)
})

test_that("OMP_NUM_THREADS sets the default but not explicit requests", {
  old <- facloc_threads(NULL)
  on.exit(facloc_threads(old), add = TRUE)
  local_env(c(OMP_NUM_THREADS = "1", OMP_THREAD_LIMIT = "", `_R_CHECK_LIMIT_CORES_` = "",
              `_R_CHECK_PACKAGE_NAME_` = ""))
  expect_identical(facloc_threads(), 1L)
  expect_identical(resolve_threads(2), min(2L, available_cores()))
  # a nested list such as "3,2" uses its first level
  local_env(c(OMP_NUM_THREADS = "1,4"))
  expect_identical(facloc_threads(), 1L)
})

test_that("_R_CHECK_LIMIT_CORES_ limits the default to 2", {
  old <- facloc_threads(NULL)
  on.exit(facloc_threads(old), add = TRUE)
  local_env(c(`_R_CHECK_LIMIT_CORES_` = "TRUE", OMP_NUM_THREADS = "", OMP_THREAD_LIMIT = ""))
  expect_lte(facloc_threads(), 2L)
  local_env(c(`_R_CHECK_LIMIT_CORES_` = "false", `_R_CHECK_PACKAGE_NAME_` = ""))
  expect_identical(facloc_threads(), thread_cap())
})

test_that("facloc_threads(n) sets the default used by the solvers", {
  old <- facloc_threads(1)
  on.exit(facloc_threads(old), add = TRUE)
  expect_identical(facloc_threads(), 1L)
  expect_identical(facility_greedy(Xt, 2, mode = "g", sigma = sigma_t)$threads, 1L)
  facloc_threads(10^6)
  expect_identical(facloc_threads(), thread_cap())
})

test_that("forked children (mclapply) default to one thread unless told otherwise", {
  skip_on_os("windows")   # no fork
  # A fresh R, whose parent has run no OpenMP team before forking.
  out <- run_child(c(
    "Xt <- matrix(c(1:30, 3:32), 30)",
    "in_child <- function(f) unlist(parallel::mclapply(1:2, function(i) f(), mc.cores = 2))",
    "solve <- function(...) facility_greedy(Xt, 3, mode = 'g', sigma = 3, ...)$threads",
    "two <- min(2L, facloc_threads())",
    "old <- facloc_threads(2)   # a setting made in the parent is not inherited",
    "cat('default', in_child(facloc_threads), in_child(solve), '\\n')",
    # a setting made in the child, or a threads argument, is honoured
    "cat('set', in_child(function() { facloc_threads(2); facloc_threads() }) == two, '\\n')",
    "cat('argument', in_child(function() solve(threads = 2)) == two, '\\n')",
    "cat('parent', facloc_threads() == two, '\\n')",
    # once the parent ran a team, a child that asks for several gets 1 (libgomp would hang)
    "invisible(solve(threads = 2))",
    "cat('after', in_child(function() withCallingHandlers(solve(threads = 2),",
    "  warning = function(w) { cat('warned\\n'); invokeRestart('muffleWarning') })), '\\n')"))
  expect_identical(out$status, 0L)
  expect_true("default 1 1 1 1 " %in% out$output, label = paste(out$output, collapse = "\n"))
  expect_true("set TRUE TRUE " %in% out$output)
  expect_true("argument TRUE TRUE " %in% out$output)
  expect_true("parent TRUE " %in% out$output)
  expect_true("after 1 1 " %in% out$output)
  if (thread_cap() >= 2) expect_true("warned" %in% out$output)   # else nothing to refuse
})

test_that("answers are the same beside busy processes, at each thread count", {
  # Busy children take the cores, so the solvers' waits run out of spins
  # and sleep (fl_barrier.c); more threads than cores does so without them.
  skip_on_os("windows")   # no fork
  X <- facility_data("weak_cluster", n = 3000)
  fields <- c("selected", "gains", "objective", "bound")
  cores <- available_cores()
  solve_all <- function() lapply(c("dc", "hpc", "nhpc"), function(mode)
    lapply(unique(c(1, 2, cores + 2)), function(threads) {
      problem <- facility_problem(X, 20)
      out <- .Call(C_facloc_solve, problem,
                   solver_control(facility_control(), mode, 30, threads, FALSE))
      check_status(out$status)
      out[fields]
    }))
  idle <- solve_all()
  busy <- lapply(seq_len(cores), function(i) parallel::mcparallel({
    stop_at <- Sys.time() + 20
    while (Sys.time() < stop_at) NULL
  }))
  on.exit({
    tools::pskill(vapply(busy, `[[`, 0L, "pid"))
    suppressWarnings(parallel::mccollect(busy))   # killed: no results
  }, add = TRUE)
  before <- team_policy()
  expect_identical(solve_all(), idle)
  # Where the run delay is reported, the load is seen and teams shrink.
  if (.Call(C_facloc_has_openmp) && file.exists("/proc/thread-self/schedstat")) {
    after <- team_policy()
    expect_gt(after[["contended"]], before[["contended"]])
    expect_gt(after[["shrunk"]], before[["shrunk"]])
  }
})

test_that("a region run on one thread gives the answer of a full team", {
  # Under load the solvers run their regions on one thread (fl_threads.c);
  # the answer depends on the thread count asked for, never on the team.
  old <- team_policy()
  on.exit(team_policy("auto"), add = TRUE)
  threads <- min(2L, thread_cap())
  # Sizes above the work cut-offs (1e5 pairs), small enough for valgrind.
  X <- facility_data("weak_cluster", n = 1000)
  Q <- as.matrix(datasets::quakes[c("long", "lat")])
  both <- function(run) {
    team_policy("full")
    full <- run()
    team_policy("one")
    list(full = full, one = run())
  }
  fields <- c("selected", "gains", "objective", "bound")
  for (mode in facility_modes()) for (data in list(X, Q)) {
    got <- both(function() facility_greedy(data, 20, mode = mode, threads = threads)[fields])
    expect_identical(got$one, got$full, label = mode)
  }
  got <- both(function() facility_greedy(X, 20, sigma = 20, mode = "nhpc", threads = threads,
                                         control = facility_control(certify = 5))[fields])
  expect_identical(got$one, got$full)
  D <- dp_data(1000, d = 4, seed = 2)$X
  for (run in list(function() dpmeans(D, lambda = 5, threads = threads)$cluster,
                   function() ofl(D, lambda = 5, seed = 1, threads = threads)$facilities,
                   function() bpmeans(D[1:300, ], lambda = 5, threads = threads)$features,
                   function() knn_similarity(X, k = 10, threads = threads)@x)) {
    got <- both(run)
    expect_identical(got$one, got$full)
  }
  counts <- team_policy("auto")
  if (threads >= 2) expect_gt(counts[["shrunk"]], old[["shrunk"]])   # teams were cut
})

test_that("a problem too small for a team never starts one", {
  on.exit(team_policy("auto"), add = TRUE)
  X <- as.matrix(datasets::iris[1:4])   # 150 x 150 pairs: below FL_PAR_MIN_PAIRS
  solve_all <- function() {
    for (mode in facility_modes()) facility_greedy(X, 10, mode = mode, threads = 2)
    facility_greedy(X, 10, mode = "nhpc", threads = 2, control = facility_control(certify = 3))
    dpmeans(X, lambda = 2, threads = 2)
    ofl(X, lambda = 2, seed = 1, threads = 2)
    bpmeans(X, lambda = 2, threads = 2)
    knn_similarity(X, k = 5, threads = 2)
    team_policy()[["teams"]]
  }
  team_policy("auto")
  before <- team_policy()[["teams"]]
  expect_identical(solve_all(), before)
  # The count works: with every team forced (teams of the size asked for,
  # below the cut-offs too) the same calls start teams.
  team_policy("full")
  if (.Call(C_facloc_has_openmp) && thread_cap() >= 2) expect_gt(solve_all(), before)
})
