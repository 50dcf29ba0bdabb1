# Expectations shared by the test files.

# `fit` made the picks of greedy `ref` (ref_greedy() or ref_budget() of
# helper-reference.R, or an exact fit): the same picks, and to `tolerance`
# the same objective and, where `ref` has them, the same gains.
expect_greedy <- function(fit, ref, label = "fit", tolerance = 1e-9) {
  expect_identical(fit$selected, as.integer(ref$selected), label = paste0(label, ": picks"))
  if (!is.null(ref$gains))
    expect_equal(fit$gains, unname(ref$gains), tolerance = tolerance,
                 label = paste0(label, ": gains"))
  expect_equal(fit$objective, ref$objective, tolerance = tolerance,
               label = paste0(label, ": objective"))
  invisible(fit)
}

# `fit` is greedy on the similarity W up to exact ties: each pick's gain,
# given the fit's own earlier picks, is the largest to within 1e-12
# relative, and the objective is f(S).  For the exact modes on points,
# whose tiled kernel (|x|^2 + |y|^2 - 2 x.y) rounds gains tied in exact
# arithmetic (a symmetric pair a, b: (1 - c_a) + (s - c_b) against
# (s - c_a) + (1 - c_b)) apart differently from the oracle's sum (x - y)^2.
expect_greedy_tied <- function(fit, W, weights = rep(1, nrow(W)), initial = integer(),
                               label = "fit") {
  cover <- if (length(initial)) apply(W[, initial, drop = FALSE], 1, max) else rep(0, nrow(W))
  chosen <- initial
  for (t in seq_along(fit$selected)) {
    g <- ref_gains(W, cover, weights)
    g[chosen] <- -Inf
    j <- fit$selected[t]
    expect(g[j] >= max(g) - 1e-12 * (1 + max(g)),
           sprintf("%s: pick %d (%d) gains %.17g < best %.17g", label, t, j, g[j], max(g)))
    chosen <- c(chosen, j)
    cover <- pmax(cover, W[, j])
  }
  expect_equal(fit$objective, ref_objective(W, chosen, weights), tolerance = 1e-9,
               label = paste0(label, ": objective"))
  invisible(fit)
}

# `expr` fails with the classed error of a bad argument `arg`: class
# facloc_error_argument (a facloc_error), `arg` in the condition's field of
# that name and, in backquotes, in its message, which also matches the
# regular expression `pattern` where one is given, and whose call is that
# of a function a user calls (an export or an S3 method of the package),
# not of an internal helper.  Returns the condition.
expect_arg_error <- function(expr, arg, pattern = NULL) {
  err <- expect_error(expr, class = "facloc_error_argument")
  expect_s3_class(err, "facloc_error")
  expect_identical(err$arg, arg)
  expect_user_call(err)
  expect_match(conditionMessage(err), sprintf("`%s`", arg), fixed = TRUE)
  if (!is.null(pattern)) expect_match(conditionMessage(err), pattern)
  invisible(err)
}

# The condition's call is the user's, not that of an internal helper of the
# package (an alias the test calls, f <- dpmeans, is the user's call too);
# `fun` names the function expected, where given.
expect_user_call <- function(cond, fun = NULL) {
  call <- conditionCall(cond)
  expect_true(is.call(call), label = "the condition has a call")
  name <- deparse(call[[1]])
  ns <- asNamespace("facloc")
  methods <- ls(ns, pattern = "^(print|summary|plot|predict|as[.]data[.]frame)[.]")
  internal <- setdiff(ls(ns), c(getNamespaceExports(ns), methods))
  expect_false(name %in% internal, label = sprintf("`%s` is an internal helper", name))
  if (!is.null(fun)) expect_identical(name, fun)
  invisible(call)
}
