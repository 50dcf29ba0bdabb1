#' Certify a set of facilities: upper bounds on the best of size k
#'
#' Computes \eqn{f(S)} for a given set \eqn{S} (found by any method) and
#' upper bounds on \eqn{\mathrm{OPT}_k}{OPT_k}, the largest \eqn{f} over
#' sets of `k` candidates (beyond `initial`), so that
#' \eqn{f(S) / \mathrm{bound}}{f(S) / bound} certifies how far from optimal
#' \eqn{S} can be: no set of `k` does better than `1 / certificate` times
#' it. [facility_greedy()] reports the same bounds for its own answer.
#'
#' Three bounds, all exact in double precision (the smallest is `bound`):
#' \describe{
#'   \item{Online bound}{For any set \eqn{S}, \eqn{\mathrm{OPT}_k \le f(S) +
#'     }{OPT_k <= f(S) + }the sum of the \eqn{k} largest marginal gains
#'     \eqn{f(S \cup \{j\}) - f(S)}{f(S + j) - f(S)}, by submodularity
#'     (Minoux 1978; Leskovec et al. 2007, who use it as a data-dependent
#'     bound on lazy greedy's answer). Upper bounds on the gains serve as
#'     well, so [facility_greedy()] takes the smallest such bound over its
#'     rounds from the gain bounds its heaps hold.}
#'   \item{LP dual}{The linear relaxation of facility location, maximise
#'     \eqn{\sum_{ij} a_i w_{ij} x_{ij}}{sum_ij a_i w_ij x_ij} subject to
#'     \eqn{\sum_j x_{ij} \le 1}{sum_j x_ij <= 1}, \eqn{x_{ij} \le y_j \le
#'     1}{x_ij <= y_j <= 1} and \eqn{\sum_j y_j \le k}{sum_j y_j <= k}
#'     (\eqn{a_i} the client weights; Cornuejols, Fisher and Nemhauser
#'     1977), has for every \eqn{u \ge 0}{u >= 0} the dual value
#'     \deqn{B(u) = \sum_i a_i u_i + \textrm{the } k \textrm{ largest of }
#'     c_j(u) = \sum_i a_i \max(0, w_{ij} - u_i),}{B(u) = sum_i a_i u_i +
#'     (the k largest of c_j(u) = sum_i a_i max(0, w_ij - u_i)),} an upper
#'     bound on \eqn{\mathrm{OPT}_k}{OPT_k} by weak duality, however \eqn{u}
#'     is chosen. At \eqn{u} = the coverage of \eqn{S} it is the online
#'     bound; `certify` steps (see [facility_control()]) lower it from
#'     there, each moving every \eqn{u_i} towards the interval between the
#'     two largest similarities of client \eqn{i} to the current top-`k`
#'     candidates (where its part of \eqn{B} is smallest) by a step length
#'     found by a line search on \eqn{B} itself, which never rises. A
#'     step that no length makes lower \eqn{B} is followed by up to 8
#'     steps that only raise \eqn{u} (those of the direction's moves that
#'     rise), while each lowers \eqn{B} by at least 0.01\%; they are
#'     cheap, since raising \eqn{u} lowers every \eqn{c_j} and only the
#'     candidates that may still enter the top `k` are evaluated again.
#'     Open
#'     `initial` facilities fix \eqn{u_i} at or above their coverage, their
#'     columns left out; with a budget (in [facility_greedy()]) the top `k`
#'     become the fractional knapsack of the \eqn{c_j} where that is smaller
#'     (the budgeted bound of Leskovec et al. 2007, Theorem 4, at the
#'     start).}
#'   \item{Cap}{For points every similarity is at most 1, so no set covers
#'     more than the clients' total weight.}
#' }
#' The matrix-free modes of [facility_greedy()] compute \eqn{c_j(u)} from
#' the points, skipping a leaf cluster only where its ball proves every
#' \eqn{w_{ij} \le u_i}{w_ij <= u_i}, so their bound is as true as the
#' others.
#'
#' @param X,sigma,similarity,candidates,weights,initial,threads The instance,
#'   as in [facility_greedy()], with the same default `sigma` (the median
#'   heuristic of [facility_sigma()]), so that a set found by a default
#'   [facility_greedy()] call is certified for the problem it solved; with
#'   points the \eqn{n \times m}{n x m} similarity matrix is built (its
#'   memory is checked first).
#' @param selected 1-based indices of the candidates in the set, distinct
#'   and none of them `initial` (may be empty); or a [facility_greedy()]
#'   result, whose set is then certified for the problem it solved: its
#'   `sigma`, `weights`, `candidates`, `initial` and size (`k`, or the
#'   picks a `coverage` stopped at) are the defaults of the arguments not
#'   given. `X` (or `similarity`) must be the data it was run on.
#' @param k Size of the sets the optimum is taken over, by default
#'   `length(selected)`.
#' @param control [facility_control()] settings; only `certify` is used,
#'   `NULL` meaning 20 steps here, and `precision`, the precision of the
#'   matrix built from points (the bound stays true in single precision;
#'   `objective` is computed in double either way).
#' @param ... Reserved for future arguments; must be empty.
#' @return An object of class `facility_bound`: `objective` \eqn{f(S)}
#'   (with `initial`), `bound`, `bound_online` (\eqn{f(S)} plus the \eqn{k}
#'   largest gains), `bound_dual`, `bound_cap` (the clients' total weight,
#'   `NA` with a `similarity`), `certificate` (`objective / bound`), `k`,
#'   `dual_trace` (\eqn{B} after each step), `dual_steps`, `seconds` and
#'   `evaluations` (of the \eqn{c_j}).
#' @references
#' Cornuejols, G., Fisher, M. L. and Nemhauser, G. L. (1977). Location of
#' bank accounts to optimize float: an analytic study of exact and
#' approximate algorithms. *Management Science* 23(8), 789-810.
#'
#' Minoux, M. (1978). Accelerated greedy algorithms for maximizing
#' submodular set functions. In *Optimization Techniques*, Lecture Notes in
#' Control and Information Sciences 7, 234-243. Springer.
#'
#' Leskovec, J., Krause, A., Guestrin, C., Faloutsos, C., VanBriesen, J.
#' and Glance, N. (2007). Cost-effective outbreak detection in networks.
#' *KDD '07*, 420-429.
#' @seealso [facility_greedy()], whose results carry the same bounds.
#' @export
#' @examples
#' X <- facility_data("small", n = 300)
#' fit <- facility_greedy(X, k = 10, threads = 1)
#' facility_bound(X, fit, threads = 1)               # the problem fit solved
#' facility_bound(X, sample(300, 10), threads = 1)   # a random set: a poor certificate
facility_bound <- function(X, selected, k = length(selected), sigma = NULL, similarity = NULL,
                           candidates = NULL, weights = NULL, initial = NULL,
                           threads = facloc_threads(), control = facility_control(), ...) {
  check_dots_empty(...)
  if (!missing(selected) && inherits(selected, "facility_greedy")) {
    fit <- selected
    if (missing(k)) k <- bound_size(fit)
    if (is.null(sigma) && is.null(similarity) && !is.na(fit$sigma)) sigma <- fit$sigma
    if (is.null(weights)) weights <- fit$weights
    if (is.null(candidates)) candidates <- fit$candidates
    if (is.null(initial) && length(fit$initial)) initial <- fit$initial
    selected <- fit$selected
  }
  has_points <- check_instance(!missing(X) && !is.null(X), similarity)
  threads <- resolve_threads(threads)
  input <- facility_input(if (has_points) X, sigma, similarity, candidates, threads)
  check_control(control)
  problem <- facility_problem(input$X, input$sigma, threads, input$similarity, candidates,
                              weights, initial)
  if (missing(selected)) abort_missing("selected")
  selected <- check_indices(selected, problem$m, "selected", allow_empty = TRUE)
  if (anyDuplicated(selected)) abort_argument("selected", "must not repeat a candidate")
  if (any(selected %in% (problem$initial + 1L)))
    abort_argument("selected", "must not hold `initial` facilities")
  k <- check_count(k, "k", max = problem$m - length(problem$initial))
  ctrl <- solver_control(control, "dc", k, threads, FALSE)
  if (is.null(control$certify)) ctrl$certify <- 20L
  ctrl$certify_goal <- 0   # every step: the bound is what was asked for
  check_memory(.Call(C_facloc_solve_bytes, problem, ctrl),
               sprintf("facility_bound() on %d clients and %d candidates", problem$n, problem$m),
               "certify a sample of the clients, or the answer of facility_greedy(), which carries its bound")
  started <- proc.time()[["elapsed"]]
  out <- .Call(C_facloc_bound, problem, selected - 1L, ctrl)
  check_status(out$status, "facility_bound()")
  structure(list(objective = out$objective, bound = out$bound,
                 bound_online = out$bound_online, bound_dual = out$bound_dual,
                 certificate = if (out$bound > 0) out$objective / out$bound else 1,
                 bound_cap = bound_cap(problem),
                 k = k, selected = selected, dual_trace = out$dual_trace,
                 dual_steps = out$dual_steps,
                 seconds = proc.time()[["elapsed"]] - started,
                 evaluations = out$bound_evaluations),
            class = "facility_bound")
}

#' @export
print.facility_bound <- function(x, ...) {
  cat(sprintf("Certificate of a set of %d facilities for sets of %d\n", length(x$selected), x$k))
  cat(sprintf("  f(S) = %.6g, bound = %.6g (%s)\n", x$objective, x$bound, bound_parts(x)))
  cat("  ", certificate_line(x, x$k), "\n", sep = "")
  invisible(x)
}

# B(u) of the LP dual for k picks at u (client order), for tests against a
# plain-R B(u).
dual_value <- function(problem, u, k, threads = 1L) {
  out <- .Call(C_facloc_dual_value, problem, as.double(u), as.integer(k), as.integer(threads))
  check_status(out$status, "dual_value()")
  out$value
}

# The matrix-free oracle's c_j(u) for every candidate at u = alpha times the
# coverage of `selected` (1-based), for tests against exact values.
mf_dual_values <- function(problem, control, selected, alpha) {
  out <- .Call(C_facloc_mf_dual_values, problem, control, as.integer(selected) - 1L,
               as.double(alpha))
  check_status(out$status, "mf_dual_values()")
  out$value
}
