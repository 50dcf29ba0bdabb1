# Bad-input catalogue: every exported function, every argument, the mistakes
# users make.  Each case either returns the right answer (checked against the
# plain-R oracles of helper-reference.R) or raises a classed error whose
# message names the argument.  One row per case; the loop at the end runs
# them.

set.seed(42)
X0 <- rbind(matrix(rnorm(12, 0, 0.5), 6), matrix(rnorm(12, 3, 0.5), 6))
W0 <- ref_similarity(X0, sigma = 1)
n0 <- nrow(X0)

# A case that must fail with `class`, naming `arg` in the message (and, for
# argument errors, in the condition's `arg` field).
bad <- function(label, call, arg, class = "facloc_error_argument") {
  list(label = label, call = call, arg = arg, class = class)
}
# A case that must succeed; `check(result)` holds the expectations.
good <- function(label, call, check) {
  list(label = label, call = call, check = check)
}

# The check of a case whose result must be the oracle's greedy on W.
same_as_greedy <- function(W, k, weights = rep(1, nrow(W)), initial = integer()) {
  force(W); force(k); force(weights); force(initial)
  function(fit) {
    expect_greedy(fit, ref_greedy(W, k, weights, initial), tolerance = 1e-10)
    expect_gte(fit$bound, fit$objective)
  }
}

fg <- function(...) facility_greedy(..., threads = 1)

greedy_cases <- list(
  # X
  bad("X character matrix", function() fg(matrix("a", 3, 2), 1, mode = "g"), "X"),
  bad("X list", function() fg(list(1, 2, 3), 1, mode = "g"), "X"),
  bad("X NULL without similarity", function() fg(NULL, 1, mode = "g"), "X"),
  bad("X missing without similarity", function() fg(k = 1, mode = "g"), "X"),
  bad("X data frame without rows", function() fg(as.data.frame(X0)[0, ], 1, mode = "g"), "X"),
  bad("X with NA", function() fg(replace(X0, 3, NA), 1, mode = "g", sigma = 1), "X"),
  bad("X with NaN", function() fg(replace(X0, 3, NaN), 1, mode = "g", sigma = 1), "X"),
  bad("X with Inf", function() fg(replace(X0, 3, Inf), 1, mode = "g", sigma = 1), "X"),
  bad("X with -Inf", function() fg(replace(X0, 3, -Inf), 1, mode = "g", sigma = 1), "X"),
  bad("X with 0 rows", function() fg(X0[0, , drop = FALSE], 1, mode = "g"), "X"),
  bad("X with 0 columns", function() fg(X0[, 0, drop = FALSE], 1, mode = "g"), "X"),
  bad("X data frame with a factor", function()
    fg(data.frame(a = 1:3, b = factor(c("x", "y", "z"))), 1, mode = "g"), "X"),
  bad("X data frame with characters", function()
    fg(data.frame(a = 1:3, b = c("x", "y", "z")), 1, mode = "g"), "X"),
  bad("X logical matrix", function() fg(matrix(TRUE, 3, 2), 1, mode = "g"), "X"),
  bad("X complex matrix", function() fg(matrix(1i, 3, 2), 1, mode = "g"), "X"),
  good("X numeric data frame", function() fg(as.data.frame(X0), 3, mode = "g", sigma = 1),
       same_as_greedy(W0, 3)),
  good("X integer matrix", function() fg(matrix(c(1L, 2L, 10L, 11L, 1L, 1L, 5L, 5L), 4), 2,
                                         mode = "dc", sigma = 2),
       same_as_greedy(ref_similarity(matrix(c(1, 2, 10, 11, 1, 1, 5, 5), 4), sigma = 2), 2)),
  good("X plain vector is one column", function() fg(c(0, 0.1, 5, 5.2, 9), 2, mode = "c", sigma = 1),
       same_as_greedy(ref_similarity(matrix(c(0, 0.1, 5, 5.2, 9)), sigma = 1), 2)),
  good("X single point", function() fg(X0[1, , drop = FALSE], 1, mode = "c", sigma = 1),
       function(fit) { expect_identical(fit$selected, 1L); expect_equal(fit$objective, 1) }),
  good("X all points identical", function() fg(matrix(2.5, 7, 3), 3, mode = "dc", sigma = 1),
       function(fit) {
         expect_identical(fit$selected, 1:3)        # ties go to the lowest index
         expect_equal(fit$objective, 7)
         expect_equal(fit$gains, c(7, 0, 0))
       }),
  good("X duplicated points", function() fg(X0[c(1, 1, 2, 2, 7, 7, 8), ], 3, mode = "c", sigma = 1),
       same_as_greedy(ref_similarity(X0[c(1, 1, 2, 2, 7, 7, 8), ], sigma = 1), 3)),
  good("X huge values (1e308)", function()
    fg(matrix(c(1e308, -1e308, 0, 1, 1, 0, 2, 1e308), 4), 2, mode = "g", sigma = 1),
    same_as_greedy(ref_similarity(matrix(c(1e308, -1e308, 0, 1, 1, 0, 2, 1e308), 4), sigma = 1), 2)),
  good("X denormal values", function() fg(matrix(c(5e-324, 0, 1e-320, 2e-310), 4, 1), 2, mode = "g", sigma = 1),
       function(fit) { expect_identical(fit$selected, 1:2); expect_equal(fit$objective, 4) }),
  good("X with k = n selects everything", function() fg(X0, n0, mode = "dc", sigma = 1),
       function(fit) {
         expect_setequal(fit$selected, seq_len(n0))
         expect_equal(fit$objective, n0)
         expect_equal(fit$bound, n0)
       }),
  # k
  bad("k missing", function() fg(X0, mode = "g"), "k"),
  bad("k zero", function() fg(X0, 0, mode = "g"), "k"),
  bad("k past the largest integer", function() fg(X0, 2^31, mode = "g"), "k"),
  bad("control batch past the largest integer", function() facility_control(batch = 1e10), "batch"),
  bad("k negative", function() fg(X0, -1, mode = "g"), "k"),
  bad("k fractional", function() fg(X0, 1.5, mode = "g"), "k"),
  bad("k NA", function() fg(X0, NA, mode = "g"), "k"),
  bad("k NaN", function() fg(X0, NaN, mode = "g"), "k"),
  bad("k Inf", function() fg(X0, Inf, mode = "g"), "k"),
  bad("k huge", function() fg(X0, 1e308, mode = "g"), "k"),
  bad("k character", function() fg(X0, "3", mode = "g"), "k"),
  bad("k length 2", function() fg(X0, c(1, 2), mode = "g"), "k"),
  bad("k NULL", function() fg(X0, NULL, mode = "g"), "k"),
  bad("k list", function() fg(X0, list(2), mode = "g"), "k"),
  bad("k above n", function() fg(X0, n0 + 1, mode = "g"), "k"),
  good("k integer type", function() fg(X0, 2L, mode = "g", sigma = 1), same_as_greedy(W0, 2)),
  # mode
  bad("mode unknown", function() fg(X0, 2, mode = "fast"), "mode"),
  bad("mode numeric", function() fg(X0, 2, mode = 1), "mode"),
  bad("mode length 2", function() fg(X0, 2, mode = c("g", "c")), "mode"),
  bad("mode NA", function() fg(X0, 2, mode = NA_character_), "mode"),
  bad("mode upper case", function() fg(X0, 2, mode = "G"), "mode"),
  bad("matrix-free mode without points", function() fg(similarity = W0, k = 2, mode = "hpc"), "mode"),
  # threads
  bad("threads zero", function() facility_greedy(X0, 2, mode = "g", threads = 0), "threads"),
  bad("threads negative", function() facility_greedy(X0, 2, mode = "g", threads = -2), "threads"),
  bad("threads NA", function() facility_greedy(X0, 2, mode = "g", threads = NA), "threads"),
  bad("threads fractional", function() facility_greedy(X0, 2, mode = "g", threads = 1.5), "threads"),
  bad("threads character", function() facility_greedy(X0, 2, mode = "g", threads = "2"), "threads"),
  bad("threads Inf", function() facility_greedy(X0, 2, mode = "g", threads = Inf), "threads"),
  bad("threads NULL", function() facility_greedy(X0, 2, mode = "g", threads = NULL), "threads"),
  good("threads past the largest integer are capped", function()
    facility_greedy(X0, 2, mode = "dc", threads = 2^31, sigma = 1),
    function(fit) {
      expect_lte(fit$threads, max(1L, parallel::detectCores()))
      same_as_greedy(W0, 2)(fit)
    }),
  good("a default of threads past the largest integer is capped", function() {
    old <- facloc_threads(2^31)
    on.exit(facloc_threads(old))
    facility_greedy(X0, 2, mode = "dc", sigma = 1)
  }, same_as_greedy(W0, 2)),
  good("threads far above the cores is capped", function()
    facility_greedy(X0, 2, mode = "dc", threads = 100000, sigma = 1),
    function(fit) {
      expect_lte(fit$threads, max(1L, parallel::detectCores()))
      same_as_greedy(W0, 2)(fit)
    }),
  # sigma
  bad("sigma zero", function() fg(X0, 2, mode = "g", sigma = 0), "sigma"),
  bad("sigma negative", function() fg(X0, 2, mode = "g", sigma = -1), "sigma"),
  bad("sigma NA", function() fg(X0, 2, mode = "g", sigma = NA), "sigma"),
  bad("sigma Inf", function() fg(X0, 2, mode = "g", sigma = Inf), "sigma"),
  bad("sigma character", function() fg(X0, 2, mode = "g", sigma = "1"), "sigma"),
  bad("sigma length 2", function() fg(X0, 2, mode = "g", sigma = c(1, 2)), "sigma"),
  bad("sigma so tiny 2 sigma^2 underflows", function() fg(X0, 2, mode = "g", sigma = 1e-300), "sigma"),
  bad("sigma so huge 2 sigma^2 overflows", function() fg(X0, 2, mode = "g", sigma = 1e300), "sigma"),
  good("sigma tiny but representable", function() fg(X0, 3, mode = "c", sigma = 1e-150),
       function(fit) { expect_identical(fit$selected, 1:3); expect_equal(fit$objective, 3) }),
  good("sigma huge but representable", function() fg(X0, 2, mode = "dc", sigma = 1e150),
       function(fit) { expect_identical(fit$selected, 1:2); expect_equal(fit$objective, n0) }),
  # similarity
  bad("similarity negative", function() fg(similarity = -W0, k = 2, mode = "g"), "similarity"),
  bad("similarity NA", function() fg(similarity = replace(W0, 5, NA), k = 2, mode = "g"), "similarity"),
  bad("similarity Inf", function() fg(similarity = replace(W0, 5, Inf), k = 2, mode = "g"), "similarity"),
  bad("similarity not square beside X", function() fg(X0, 2, similarity = W0[, 1:5], mode = "g"), "similarity"),
  good("similarity rectangular: candidates in columns", function() fg(similarity = W0[, 1:5], k = 2, mode = "g"),
       same_as_greedy(W0[, 1:5], 2)),
  bad("similarity character", function() fg(similarity = matrix("1", 2, 2), k = 1, mode = "g"), "similarity"),
  bad("similarity empty", function() fg(similarity = matrix(0, 0, 0), k = 1, mode = "g"), "similarity"),
  bad("similarity vector", function() fg(similarity = c(1, 0.5), k = 1, mode = "g"), "similarity"),
  bad("similarity rows differ from X", function() fg(X0, 2, mode = "g", similarity = diag(3)), "similarity"),
  good("similarity given", function() fg(similarity = W0, k = 4, mode = "c"), same_as_greedy(W0, 4)),
  good("similarity integer matrix", function() fg(similarity = diag(3L), k = 2, mode = "g"),
       same_as_greedy(diag(3), 2)),
  good("similarity all zero", function() fg(similarity = matrix(0, 4, 4), k = 2, mode = "dc"),
       function(fit) { expect_identical(fit$selected, 1:2); expect_equal(fit$objective, 0) }),
  # verbose
  bad("verbose NA", function() fg(X0, 2, mode = "g", verbose = NA), "verbose"),
  bad("verbose character", function() fg(X0, 2, mode = "g", verbose = "yes"), "verbose"),
  bad("verbose length 2", function() fg(X0, 2, mode = "g", verbose = c(TRUE, FALSE)), "verbose"),
  good("verbose prints progress", function() {
    out <- capture.output(fit <- fg(X0, 2, mode = "g", sigma = 1, verbose = TRUE))
    fit$printed <- out
    fit
  }, function(fit) expect_true(any(grepl("round 2", fit$printed)))),
  # control
  bad("control a plain list", function() fg(X0, 2, mode = "g", control = list(eps = 0)), "control"),
  bad("control NULL", function() fg(X0, 2, mode = "g", control = NULL), "control"),
  # candidates
  bad("candidates wrong columns", function() fg(X0, 2, mode = "g", candidates = X0[, 1, drop = FALSE]), "candidates"),
  bad("candidates with NA", function() fg(X0, 2, mode = "g", candidates = replace(X0[1:4, ], 1, NA)), "candidates"),
  bad("candidates character", function() fg(X0, 2, mode = "g", candidates = matrix("a", 2, 2)), "candidates"),
  bad("candidates without X", function() fg(similarity = W0, k = 2, mode = "g", candidates = X0), "candidates"),
  bad("candidates 0 rows", function() fg(X0, 1, mode = "g", candidates = X0[0, ]), "candidates"),
  good("candidates apart from clients", function() fg(X0, 2, mode = "dc", sigma = 1, candidates = X0[c(2, 9, 4), ] + 0.1),
       same_as_greedy(ref_similarity(X0, X0[c(2, 9, 4), ] + 0.1, sigma = 1), 2)),
  good("candidates a single row", function() fg(X0, 1, mode = "c", sigma = 1, candidates = X0[5, , drop = FALSE]),
       same_as_greedy(ref_similarity(X0, X0[5, , drop = FALSE], sigma = 1), 1)),
  bad("k above the candidates", function() fg(X0, 4, mode = "g", candidates = X0[1:3, ]), "k"),
  # weights
  bad("weights wrong length", function() fg(X0, 2, mode = "g", weights = rep(1, 3)), "weights"),
  bad("weights negative", function() fg(X0, 2, mode = "g", weights = rep(-1, n0)), "weights"),
  bad("weights NA", function() fg(X0, 2, mode = "g", weights = replace(rep(1, n0), 2, NA)), "weights"),
  bad("weights Inf", function() fg(X0, 2, mode = "g", weights = replace(rep(1, n0), 2, Inf)), "weights"),
  bad("weights character", function() fg(X0, 2, mode = "g", weights = rep("1", n0)), "weights"),
  bad("weights list", function() fg(X0, 2, mode = "g", weights = as.list(rep(1, n0))), "weights"),
  good("weights all zero", function() fg(X0, 2, mode = "c", sigma = 1, weights = rep(0, n0)),
       function(fit) {
         expect_identical(fit$selected, 1:2)
         expect_equal(fit$objective, 0)
         expect_equal(fit$bound, 0)
       }),
  good("weights uneven", function() fg(X0, 3, mode = "dc", sigma = 1, weights = seq_len(n0)),
       same_as_greedy(W0, 3, weights = seq_len(n0))),
  good("weights denormal", function() fg(X0, 2, mode = "g", sigma = 1, weights = rep(5e-324, n0)),
       function(fit) { expect_length(fit$selected, 2); expect_gte(fit$bound, fit$objective) }),
  # initial
  bad("initial zero", function() fg(X0, 2, mode = "g", initial = 0), "initial"),
  bad("initial above m", function() fg(X0, 2, mode = "g", initial = n0 + 1), "initial"),
  bad("initial duplicated", function() fg(X0, 2, mode = "g", initial = c(1, 1)), "initial"),
  bad("initial NA", function() fg(X0, 2, mode = "g", initial = NA_real_), "initial"),
  bad("initial fractional", function() fg(X0, 2, mode = "g", initial = 1.5), "initial"),
  bad("initial character", function() fg(X0, 2, mode = "g", initial = "1"), "initial"),
  good("initial empty is no initial set", function() fg(X0, 2, mode = "g", sigma = 1, initial = integer()),
       same_as_greedy(W0, 2)),
  bad("initial holding every candidate", function() fg(X0, 1, mode = "g", initial = seq_len(n0)),
      "initial"),
  bad("k above the candidates left after initial", function() fg(X0, n0, mode = "g", initial = 1), "k"),
  good("initial facilities", function() fg(X0, 2, mode = "c", sigma = 1, initial = c(3, 10)),
       same_as_greedy(W0, 2, initial = c(3, 10))),
  good("initial leaving exactly k", function() fg(X0, n0 - 2, mode = "dc", sigma = 1, initial = c(1, 12)),
       function(fit) { expect_setequal(fit$selected, 2:11); expect_equal(fit$objective, n0) }),
  # ...
  bad("unknown named argument", function() fg(X0, 2, mode = "g", sigmaa = 1), "sigmaa")
)

objective_cases <- list(
  bad("objective: X missing", function() facility_objective(selected = 1), "X"),
  bad("objective: X character", function() facility_objective(matrix("a", 2, 2), 1), "X"),
  bad("objective: X with NaN", function() facility_objective(replace(X0, 1, NaN), 1), "X"),
  bad("objective: selected missing", function() facility_objective(X0), "selected"),
  bad("objective: selected zero", function() facility_objective(X0, 0), "selected"),
  bad("objective: selected above n", function() facility_objective(X0, n0 + 1), "selected"),
  bad("objective: selected duplicated", function() facility_objective(X0, c(2, 2)), "selected"),
  bad("objective: selected NA", function() facility_objective(X0, c(1, NA)), "selected"),
  bad("objective: selected character", function() facility_objective(X0, "1"), "selected"),
  bad("objective: selected NULL", function() facility_objective(X0, NULL), "selected"),
  bad("objective: selected fractional", function() facility_objective(X0, 1.5), "selected"),
  bad("objective: sigma zero", function() facility_objective(X0, 1, sigma = 0), "sigma"),
  bad("objective: sigma underflows", function() facility_objective(X0, 1, sigma = 1e-200), "sigma"),
  bad("objective: threads zero", function() facility_objective(X0, 1, threads = 0), "threads"),
  bad("objective: weights short", function() facility_objective(X0, 1, weights = 1), "weights"),
  bad("objective: similarity negative", function() facility_objective(similarity = -W0, selected = 1), "similarity"),
  good("objective: empty set is 0", function() facility_objective(X0, integer(), sigma = 1),
       function(v) expect_identical(v, 0)),
  good("objective: a set", function() facility_objective(X0, c(2, 8, 11), sigma = 1, threads = 1),
       function(v) expect_equal(v, ref_objective(W0, c(2, 8, 11)), tolerance = 1e-12)),
  good("objective: all candidates", function() facility_objective(X0, seq_len(n0), sigma = 1),
       function(v) expect_equal(v, n0)),
  good("objective: weights and candidates", function()
    facility_objective(X0, 2:1, sigma = 1, candidates = X0[c(4, 9), ], weights = seq_len(n0)),
    function(v) expect_equal(v, ref_objective(ref_similarity(X0, X0[c(4, 9), ], sigma = 1), 1:2,
                                              seq_len(n0)), tolerance = 1e-12)),
  good("objective: similarity", function() facility_objective(similarity = W0, selected = c(1, 7)),
       function(v) expect_equal(v, ref_objective(W0, c(1, 7)), tolerance = 1e-12))
)

control_cases <- list(
  bad("control: eps negative", function() facility_control(eps = -0.1), "eps"),
  bad("control: eps above 1", function() facility_control(eps = 1.5), "eps"),
  bad("control: eps NA", function() facility_control(eps = NA), "eps"),
  bad("control: eps length 2", function() facility_control(eps = c(0.1, 0.2)), "eps"),
  bad("control: tau zero", function() facility_control(tau = 0), "tau"),
  bad("control: tau above 1", function() facility_control(tau = 2), "tau"),
  bad("control: tau character", function() facility_control(tau = "0.5"), "tau"),
  bad("control: batch zero", function() facility_control(batch = 0), "batch"),
  bad("control: batch character", function() facility_control(batch = "a"), "batch"),
  bad("control: batch Inf", function() facility_control(batch = Inf), "batch"),
  bad("control: clusters zero", function() facility_control(clusters = 0), "clusters"),
  bad("control: clusters NA", function() facility_control(clusters = NA), "clusters"),
  bad("control: group_size fractional", function() facility_control(group_size = 1.5), "group_size"),
  bad("control: seed negative", function() facility_control(seed = -1), "seed"),
  bad("control: seed above int max", function() facility_control(seed = 2^31), "seed"),
  good("control: exact settings", function() facility_control(batch = 1, eps = 0, tau = 1),
       function(ctl) {
         expect_s3_class(ctl, "facility_control")
         expect_identical(ctl$batch, 1L)
       })
)

threads_cases <- list(
  bad("facloc_threads: zero", function() facloc_threads(0), "n"),
  bad("facloc_threads: character", function() facloc_threads("2"), "n"),
  bad("facloc_threads: NA", function() facloc_threads(NA), "n"),
  bad("facloc_threads: fractional", function() facloc_threads(1.5), "n"),
  bad("facloc_threads: length 2", function() facloc_threads(c(1, 2)), "n"),
  bad("facloc_threads: list", function() facloc_threads(list(1)), "n"),
  good("facloc_threads: huge request is capped", function() {
    old <- facloc_threads(1e6)
    on.exit(facloc_threads(old))
    facloc_threads()
  }, function(v) expect_lte(v, max(1L, parallel::detectCores())))
)

memory_cases <- list(
  bad("memory limit negative", function() with_memory_limit(-1, facloc_memory_limit()),
      "options(facloc.memory_limit)"),
  bad("memory limit zero", function() with_memory_limit(0, facloc_memory_limit()),
      "options(facloc.memory_limit)"),
  bad("memory limit character", function() with_memory_limit("1GB", facloc_memory_limit()),
      "options(facloc.memory_limit)"),
  bad("memory limit NA", function() with_memory_limit(NA_real_, facloc_memory_limit()),
      "options(facloc.memory_limit)"),
  bad("memory limit length 2", function() with_memory_limit(c(1, 2), facloc_memory_limit()),
      "options(facloc.memory_limit)"),
  bad("memory limit too small for the request", function()
    with_memory_limit(100, fg(X0, 2, mode = "g", sigma = 1)), NA, class = "facloc_error_memory"),
  good("memory limit as an integer", function() with_memory_limit(2000000000L, facloc_memory_limit()),
       function(v) expect_identical(v, 2e9))
)

knn_cases <- list(
  bad("knn: X character", function() knn_similarity(matrix("a", 3, 2), k = 1), "X"),
  bad("knn: X with NA", function() knn_similarity(replace(X0, 2, NA), k = 2, sigma = 1), "X"),
  bad("knn: k zero", function() knn_similarity(X0, k = 0, sigma = 1), "k"),
  bad("knn: k NA", function() knn_similarity(X0, k = NA, sigma = 1), "k"),
  bad("knn: sigma negative", function() knn_similarity(X0, k = 2, sigma = -1), "sigma"),
  bad("knn: sigma underflows", function() knn_similarity(X0, k = 2, sigma = 1e-300), "sigma"),
  bad("knn: threads zero", function() knn_similarity(X0, k = 2, sigma = 1, threads = 0), "threads"),
  bad("knn: candidates wrong columns", function() knn_similarity(X0, k = 2, sigma = 1, candidates = X0[, 1]), "candidates"),
  good("knn: k = n keeps every similarity", function() knn_similarity(X0, k = n0, sigma = 1, threads = 1),
       function(S) expect_equal(unname(as.matrix(S)), unname(W0), tolerance = 1e-12))
)

occ_fun_cases <- function(name) {
  f <- get(name, mode = "function")
  p <- function(label) paste0(name, ": ", label)
  list(
    bad(p("X character"), function() f(matrix("a", 3, 2), lambda = 1), "X"),
    bad(p("X list"), function() f(list(1, 2), lambda = 1), "X"),
    bad(p("X with NaN"), function() f(replace(X0, 4, NaN), lambda = 1), "X"),
    bad(p("X with Inf"), function() f(replace(X0, 4, Inf), lambda = 1), "X"),
    bad(p("X 0 rows"), function() f(X0[0, ], lambda = 1), "X"),
    bad(p("X factor data frame"), function() f(data.frame(a = factor(1:3)), lambda = 1), "X"),
    bad(p("lambda missing"), function() f(X0), "lambda"),
    bad(p("lambda zero"), function() f(X0, lambda = 0), "lambda"),
    bad(p("lambda negative"), function() f(X0, lambda = -1), "lambda"),
    bad(p("lambda NA"), function() f(X0, lambda = NA), "lambda"),
    bad(p("lambda Inf"), function() f(X0, lambda = Inf), "lambda"),
    bad(p("lambda length 2"), function() f(X0, lambda = c(1, 2)), "lambda"),
    bad(p("threads zero"), function() f(X0, lambda = 1, threads = 0), "threads"),
    bad(p("method unknown"), function() f(X0, lambda = 1, method = "fast"), "method"),
    bad(p("batch zero"), function() f(X0, lambda = 1, batch = 0), "batch"),
    bad(p("batch fractional"), function() f(X0, lambda = 1, batch = 2.5), "batch"),
    bad(p("seed negative"), function() f(X0, lambda = 1, seed = -1), "seed"),
    bad(p("order not a permutation"), function() f(X0, lambda = 1, method = "serial", order = rep(1, n0)), "order"),
    bad(p("cl not a cluster"), function() f(X0, lambda = 1, cl = "localhost"), "cl"),
    good(p("a single point"), function() f(X0[1, , drop = FALSE], lambda = 1, threads = 1, seed = 1),
         function(fit) expect_equal(fit$objective, 1, tolerance = 1e-12)),   # lambda^2 for its one cluster
    good(p("all points identical"), function() f(matrix(3, 9, 2), lambda = 1, threads = 2, seed = 1),
         function(fit) expect_equal(fit$objective, 1, tolerance = 1e-12)),
    good(p("integer matrix as its doubles"), function() f(matrix(c(1L, 10L, 4L, 1L, 10L, 5L), 3), lambda = 1, threads = 1, seed = 1),
         function(fit) {
           ref <- f(matrix(c(1, 10, 4, 1, 10, 5), 3), lambda = 1, threads = 1, seed = 1)
           expect_identical(fit$objective, ref$objective)
         })
  )
}

data_cases <- list(
  bad("facility_data: preset unknown", function() facility_data("huge"), "preset"),
  bad("facility_data: preset numeric", function() facility_data(1), "preset"),
  bad("facility_data: n zero", function() facility_data("small", n = 0), "n"),
  bad("facility_data: d zero", function() facility_data("small", n = 10, d = 0), "d"),
  bad("facility_data: seed NA", function() facility_data("small", n = 10, seed = NA), "seed"),
  good("facility_data: one point", function() facility_data("small", n = 1, d = 2),
       function(X) expect_equal(dim(X), c(1L, 2L))),
  bad("dp_data: n zero", function() dp_data(0), "n"),
  bad("dp_data: theta negative", function() dp_data(10, theta = -1), "theta"),
  bad("dp_data: sd NA", function() dp_data(10, sd = NA), "sd"),
  bad("bp_data: n character", function() bp_data("10"), "n"),
  bad("bp_data: d zero", function() bp_data(10, d = 0), "d"),
  bad("adjusted_rand_index: lengths differ", function() adjusted_rand_index(1:3, 1:4), "b"),
  good("adjusted_rand_index: relabelled partition", function() adjusted_rand_index(c(1, 1, 2, 2), c(5, 5, 3, 3)),
       function(v) expect_equal(v, 1)),
  bad("facility_pass_time: X with NA", function() facility_pass_time(replace(X0, 1, NA)), "X"),
  bad("facility_pass_time: repeats zero", function() facility_pass_time(X0, repeats = 0), "repeats"),
  bad("facility_pass_time: sigma zero", function() facility_pass_time(X0, sigma = 0), "sigma"),
  bad("facility_pass_time: sigma too small to square", function() facility_pass_time(X0, sigma = 1e-300),
      "sigma"),
  bad("facility_benchmark: preset unknown", function() facility_benchmark("huge", progress = FALSE), "presets"),
  bad("facility_benchmark: mode unknown", function() facility_benchmark("small", modes = "fast", progress = FALSE), "modes"),
  bad("facility_benchmark: threads zero", function() facility_benchmark("small", threads = 0, progress = FALSE), "threads"),
  bad("scaling_table: not a benchmark", function() scaling_table(data.frame(a = 1)), "bench"),
  bad("read_benchmark: file NA", function() read_benchmark(NA_character_), "file"),
  bad("serial_order: not an OCC fit", function() serial_order(list(a = 1)), "fit"),
  bad("predict: newdata wrong columns", function()
    predict(fg(X0, 2, mode = "g", sigma = 1), X0[, 1, drop = FALSE]), "newdata")
)

run_cases <- function(cases) {
  for (case in cases) {
    test_that(case$label, {
      if (!is.null(case$check)) {
        case$check(case$call())
      } else if (case$class == "facloc_error_argument") {
        expect_arg_error(case$call(), case$arg)
      } else {
        err <- expect_error(case$call(), class = case$class)
        if (!is.na(case$arg)) expect_match(conditionMessage(err), case$arg, fixed = TRUE)
        expect_s3_class(err, "facloc_error")
      }
    })
  }
  length(cases)
}

n_cases <- sum(vapply(c(list(greedy_cases, objective_cases, control_cases, threads_cases,
                             memory_cases, knn_cases, data_cases),
                        lapply(c("dpmeans", "ofl", "bpmeans"), occ_fun_cases)),
                      run_cases, integer(1)))

test_that("the catalogue holds at least 60 cases", {
  expect_gte(n_cases, 60)
})

test_that("a non-finite value is found wherever it sits in a large X", {
  # the check runs over blocks of 4096 values: first, block edges, last
  X <- matrix(rnorm(3 * 4096 + 5), ncol = 1)
  expect_identical(dim(dpmeans(X, lambda = 3, method = "serial")$centers)[2], 1L)
  for (value in list(NA_real_, NaN, Inf, -Inf))
    for (at in c(1, 4096, 4097, 8192, length(X))) {
      expect_arg_error(dpmeans(replace(X, at, value), lambda = 3), "X")
    }
  Xi <- matrix(1:8200, ncol = 2)
  expect_arg_error(facility_objective(replace(Xi, 8200, NA_integer_), 1, sigma = 1), "X")
})
