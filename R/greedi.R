# facility_greedy(cl = ): distributed greedy in the GreeDi style
# (Mirzasoleiman et al., 2013) with a random partition (RandGreeDi, Barbosa
# et al., 2015).  The workers hold one part each; the caller, which has the
# data, runs the second stage and measures f(S) on all of it.

#' @rdname facility_greedy
#' @section Distributed greedy (GreeDi):
#' With `cl` (a cluster from the `parallel` package, or a number of local
#' workers to start and stop), the rows are split uniformly at random (seeded
#' by `control$seed`) into one part per worker and each part is sent once.
#' Every worker selects `k` facilities of its part with `mode` on its part
#' alone, using `threads` threads; the calling session then runs greedy over
#' the union of those picks with every row as a client, and returns the
#' better of that answer and the best single part's answer, both measured by
#' \eqn{f(S)} on the full data ([facility_objective()]).
#'
#' This is RandGreeDi: in expectation over the random partition it reaches
#' \eqn{(1 - 1/e)/2} of the optimum (Barbosa et al., 2015); for an arbitrary
#' partition GreeDi guarantees \eqn{(1 - 1/e)^2 / \min(P, k)} with \eqn{P}
#' workers (Mirzasoleiman et al., 2013). On clustered data it is usually
#' within a fraction of a percent of single-machine greedy, but it is not
#' the same selection: each part sees only its own clients, so a pick that
#' covers points spread over several parts can be missed. The result has no
#' certified `bound` (`NA`) and a component `greedi` with the parts'
#' objectives, the union's, which answer won and the bytes moved; its
#' `evaluations` and `pairs` add up every worker's and the calling
#' session's, `seconds` is the whole run and `rounds` those of the answer's
#' last stage. Only `X` (points), `k`, `mode`, `sigma`, `weights`, `threads` and
#' `control` apply; the other arguments (`coverage` and `verbose = TRUE`
#' too) raise an error of class `facloc_error_unsupported`. The default
#' `sigma` is the median heuristic on all the rows, computed before they
#' are split.
#' @param cl `NULL` (default) to run in this session, or a cluster from the
#'   `parallel` package, or a number of local workers, to run GreeDi (see
#'   the section "Distributed greedy").
#' @references Mirzasoleiman, B., Karbasi, A., Sarkar, R. and Krause, A.
#'   (2013). Distributed submodular maximization: identifying representative
#'   elements in massive data. NeurIPS.
#'
#'   Barbosa, R., Ene, A., Nguyen, H. and Ward, J. (2015). The power of
#'   randomization: distributed submodular maximization on massive datasets.
#'   ICML.
#' @name facility_greedy
NULL

facility_greedi <- function(X, k, mode, threads, sigma, control, cl, weights,
                            unsupported) {
  used <- names(Filter(Negate(is.null), unsupported))
  if (length(used))
    facloc_abort(sprintf("`%s` is not supported with `cl`: GreeDi takes points `X` and optional `weights` only; drop `cl` to use it",
                         used[1]), "facloc_error_unsupported", arg = used[1])
  if (is.null(X)) abort_argument("X", "must be given with `cl`")
  if (inherits(X, "dist"))
    abort_argument("X", "must be points with `cl`, not a `dist`: the workers are sent rows")
  X <- check_points(X, "X")
  n <- nrow(X)
  if (is.null(mode)) mode <- "nhpc"
  mode <- check_choice(mode, facility_modes(), "mode")
  threads <- resolve_threads(threads)
  sigma_rule <- if (is.null(sigma)) "median heuristic" else "given"
  sigma <- resolve_sigma(sigma, X, threads)   # on all the rows: every part uses the same
  check_control(control)
  k <- check_count(k, "k", max = n)
  if (!is.null(weights)) weights <- check_weights(weights, n, "weights")
  P <- cluster_size(cl, n)

  started <- proc.time()[["elapsed"]]

  part <- with_seed(control$seed, sample(rep_len(seq_len(P), n)))
  rows <- split(seq_len(n), factor(part, seq_len(P)))
  args <- lapply(rows, function(r) list(
    X = X[r, , drop = FALSE], k = min(k, length(r)), mode = mode, threads = threads,
    sigma = sigma, control = control, weights = weights[r]))
  r <- cluster_session(cl, P, function(run) occ_round(run, "greedy", args))
  picks <- Map(function(sel, r) r[sel], lapply(r$replies, `[[`, "selected"), rows)
  work <- Reduce(`+`, lapply(r$replies, function(reply) c(reply$evaluations, reply$pairs)))

  # second stage on the caller: greedy over the union, all rows as clients
  union <- sort(unique(unlist(picks)))
  stage <- function(cand) {
    m <- if (8 * as.double(n) * length(cand) <= facloc_memory_limit() / 2) "dc" else mode
    fit <- facility_greedy(X, min(k, length(cand)), mode = m, threads = threads,
                           sigma = sigma, control = control,
                           candidates = X[cand, , drop = FALSE], weights = weights)
    fit$selected <- cand[fit$selected]
    work <<- work + c(fit$evaluations, fit$pairs)
    fit
  }
  best <- stage(union)
  union_f <- best$objective
  shard_f <- vapply(picks, function(s) facility_objective(X, s, sigma = sigma, weights = weights,
                                                          threads = threads), 0)
  winner <- "union"
  if (max(shard_f) > best$objective) {
    winner <- sprintf("part %d", which.max(shard_f))
    best <- stage(picks[[which.max(shard_f)]])   # its picks, ordered by gain
  }
  best$mode <- mode
  best$m <- n
  best$bound <- best$bound_online <- best$bound_dual <- NA_real_
  best$trace <- NULL   # a stage's bounds say nothing of the whole instance
  best$sigma_rule <- sigma_rule
  best$labels <- candidate_labels(rownames(X))
  best$objective_all <- if (is.null(weights)) as.double(n) else sum(weights)
  best$threads <- threads
  best$k <- k
  best$seconds <- proc.time()[["elapsed"]] - started
  best$evaluations <- work[[1]]
  best$pairs <- work[[2]]
  best$greedi <- list(workers = P, part_sizes = unname(lengths(rows)), part_objectives = shard_f,
                      union_size = length(union),
                      union_objective = union_f,
                      winner = winner, bytes_sent = r$sent, bytes_received = r$received)
  best
}

# Runs on a worker: greedy on its part.
greedi_part <- function(a) {
  fit <- facility_greedy(a$X, a$k, mode = a$mode, threads = a$threads, sigma = a$sigma,
                         control = a$control, weights = a$weights)
  list(selected = fit$selected, objective = fit$objective, evaluations = fit$evaluations,
       pairs = fit$pairs)
}
