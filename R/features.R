# The optional features of facility_greedy(): which modes honour them, the
# sparse similarity and the budget.

# Modes that honour each feature that not every mode does, by their kind
# in the C table (facility_modes()).  Candidates, weights and initial
# facilities are honoured by every mode.
feature_modes <- function(feature) {
  switch(feature,
         similarity = facility_modes(c("exact", "sampled")),
         budget = facility_modes("exact"))
}

# A classed error for an argument the mode cannot honour, naming the modes
# that can.
abort_unsupported <- function(arg, mode, feature) {
  modes <- feature_modes(feature)
  facloc_abort(sprintf("`%s` is not supported by mode \"%s\"; use one of the modes %s",
                       arg, mode, paste0("\"", modes, "\"", collapse = ", ")),
               "facloc_error_unsupported", arg = arg, mode = mode, modes = modes)
}

# Is the objective a given similarity (dense or sparse) rather than the RBF
# kernel of the points, which may then only place the picks?
from_similarity <- function(problem) {
  !is.null(problem$sim) || !is.null(problem$sp_p)
}

check_features <- function(mode, problem, cost, budget) {
  if (from_similarity(problem) && !(mode %in% feature_modes("similarity")))
    abort_unsupported("similarity", mode, "similarity")
  budget_arg <- if (!is.null(budget)) "budget" else if (!is.null(cost)) "cost"
  if (!is.null(budget_arg) && !(mode %in% feature_modes("budget")))
    abort_unsupported(budget_arg, mode, "budget")
  invisible(TRUE)
}

# A sparse Matrix as a general double CSC matrix (no densifying): @p, @i
# and @x go to C as they are.
check_sparse_similarity <- function(similarity, arg = "similarity") {
  if (!requireNamespace("Matrix", quietly = TRUE))
    facloc_abort(sprintf("a sparse `%s` needs the Matrix package", arg), "facloc_error_unsupported",
                 arg = arg)
  if (!methods::is(similarity, "dgCMatrix"))
    similarity <- methods::as(methods::as(methods::as(similarity, "CsparseMatrix"),
                                          "generalMatrix"), "dMatrix")
  dims <- dim(similarity)
  if (dims[1] < 1L || dims[2] < 1L)
    abort_argument(arg, "must not be empty")
  # range() checks the non-zeros without vector-sized temporaries
  span <- if (length(similarity@x)) range(similarity@x) else c(0, 0)
  if (anyNA(span) || any(!is.finite(span)))
    abort_argument(arg, "must not contain NA, NaN or infinite values")
  if (span[1] < 0)
    abort_argument(arg, "must be non-negative")
  similarity
}

# Positive finite costs, one per candidate.
check_costs <- function(cost, m) {
  if (!is.numeric(cost) || length(cost) != m)
    abort_argument("cost", sprintf("must be a numeric vector with one cost per candidate (%d)", m))
  if (anyNA(cost) || any(!is.finite(cost)) || any(cost <= 0))
    abort_argument("cost", "must be finite and positive")
  as.double(cost)
}

add_budget <- function(problem, cost, budget) {
  if (is.null(cost) && is.null(budget)) return(problem)
  if (is.null(budget)) abort_argument("budget", "must be given with `cost`")
  problem$budget <- check_positive(budget, "budget")
  problem$cost <- if (is.null(cost)) rep(1, problem$m) else check_costs(cost, problem$m)
  problem
}

add_budget_result <- function(fit, problem, out) {
  fit$budget <- problem$budget
  fit$spent <- sum(problem$cost[fit$selected])
  fit$rule <- c("unit-cost", "cost-benefit")[out$budget_rule]
  fit
}
