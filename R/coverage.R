# facility_greedy(coverage = q): the shortest greedy prefix whose f(S)
# reaches q f(V), the solvers stopping between rounds (fl_control.target).

#' @rdname facility_greedy
#' @section Choosing k by coverage:
#' With `coverage = q` (in \eqn{(0, 1]}), `facility_greedy()` returns the
#' shortest greedy prefix \eqn{S} with \eqn{f(S) \ge q f(V)}, where
#' \eqn{f(V)} is the objective with every candidate open: the clients' total
#' weight when the candidates are the clients (points or a `dist`, every
#' client is then its own facility at similarity 1), otherwise
#' \eqn{\sum_i w_i \max_j s_{ij}}{sum_i w_i max_j s_ij} (computed with one pass over
#' all client-candidate pairs). This is the submodular set cover problem
#' for \eqn{g(S) = \min(f(S), q f(V))}{g(S) = min(f(S), q f(V))}, and
#' greedy stopped at the first prefix \eqn{S_t} that reaches the target
#' uses at most
#' \deqn{1 + \ln \frac{q f(V) - f(S_0)}{q f(V) - f(S_{t-1})}}{1 + ln((q f(V) - f(S_0)) / (q f(V) - f(S_(t-1))))}
#' times the fewest facilities that reach it, and at most
#' \eqn{1 + \ln(\theta_1 / \theta_t)}{1 + ln(theta_1 / theta_t)} times as
#' many, \eqn{\theta_1} and \eqn{\theta_t} the first and last gains of
#' \eqn{g} (Wolsey, 1982, Theorem 1; \eqn{S_0} holds the `initial`
#' facilities). Both are computable from the result; they hold for exact
#' greedy (the exact modes, and the others with exact settings). The
#' target is compared with a relative slack of \eqn{10^{-9}}{1e-9}, which absorbs
#' the rounding of summed gains (so `coverage = 1` stops once every client
#' is covered as well as all candidates cover it).
#'
#' `k` is then the largest number of picks allowed, by default every
#' candidate (less the `initial` ones), and a warning of class
#' `facloc_warning_coverage` says when `k` picks did not reach the target.
#' The modes stop between rounds: `"g"`, `"c"`, `"dc"` and `"stochastic"`
#' pick one facility a round, so their answer is the shortest prefix of
#' the selection they make for the same `k`; the matrix-free modes commit
#' up to `batch` picks a round and may overshoot the shortest prefix by at
#' most `batch - 1` picks. With `coverage`, `batch` defaults to 1 (on the
#' benchmark presets no round committed a second pick anyway, see
#' [facility_control()]). Mode `"stochastic"` needs `k`, which sets its
#' sample size \eqn{(m/k) \log(1/\epsilon)}{(m/k) log(1/epsilon)}. `coverage`
#' cannot be combined with a `budget` or `cost`, or with `cl`: these raise
#' an error of class `facloc_error_unsupported`.
#'
#' The `bound` of a solve stopped by its target is for sets of the size
#' returned: the modes compute it as if `k` were the number selected (the
#' upper bounds of the earlier rounds, computed for `k`, bound that optimum
#' too), so `objective / bound` certifies the answer against the best set
#' of as many facilities.
#' @param coverage Optional target share of \eqn{f(V)}, a number in
#'   \eqn{(0, 1]}: select the shortest greedy prefix that reaches it (see
#'   the section "Choosing k by coverage").
#' @references Wolsey, L. A. (1982). An analysis of the greedy algorithm for
#'   the submodular set covering problem. *Combinatorica* 2, 385--393.
#' @name facility_greedy
NULL

check_coverage <- function(coverage) {
  if (is.null(coverage)) return(NULL)
  check_fraction(coverage, "coverage", lower_open = TRUE)
}

# f(V), every candidate open: the total weight when the candidates are the
# clients under the kernel (s_ii = 1 is each client's best), else one pass
# in C over all pairs, paid for points only when `needed` (coverage).
objective_all <- function(problem, input, threads, needed) {
  if (input$source == "dist" || (input$source == "points" && is.null(problem$y)))
    return(if (is.null(problem$weight)) as.double(problem$n) else sum(problem$weight))
  if (input$source == "points" && !needed) return(NA_real_)
  problem["initial"] <- list(NULL)   # the field stays: C requires every field
  out <- .Call(C_facloc_objective, problem, seq_len(problem$m) - 1L, threads)
  check_status(out$status, "facility_greedy(coverage = )")
  out$objective
}

# The f(S) at which the solvers stop; 0 for none (fl_control.target).
coverage_target <- function(coverage, total) {
  if (is.null(coverage)) return(0)
  if (!(total > 0))
    abort_argument("coverage", "needs f(V) > 0; here every weight or similarity is 0")
  coverage * total * (1 - 1e-9)
}

# Refuse what coverage cannot be combined with; then k defaults to every
# open candidate.
coverage_k <- function(coverage, k, mode, problem, cost, budget) {
  if (!is.null(budget) || !is.null(cost))
    facloc_abort(sprintf("`coverage` cannot be combined with `%s`: both decide how many facilities to open",
                         if (!is.null(budget)) "budget" else "cost"),
                 "facloc_error_unsupported", arg = "coverage")
  if (!is.null(k)) return(k)
  if (mode == "stochastic")
    abort_argument("k", "must be given with `coverage` in mode \"stochastic\", whose sample size is (m/k) log(1/epsilon)")
  problem$m - length(problem$initial)
}

# Returns `fit` visibly: facility_greedy() at the prompt prints its result.
warn_coverage <- function(fit, target) {
  if (is.null(fit$coverage) || fit$objective >= target) return(fit)
  warning(warningCondition(
    sprintf("`coverage` = %g was not reached with k = %d picks: f(S) / f(V) = %.4g; raise `k`",
            fit$coverage, fit$k, fit$objective / fit$objective_all),
    class = c("facloc_warning_coverage", "facloc_warning"), call = user_call()))
  fit
}
