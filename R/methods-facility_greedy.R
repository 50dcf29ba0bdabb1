# print, summary and plot for facility_greedy results.

#' @export
print.facility_greedy <- function(x, ...) {
  cat(sprintf("Greedy facility location (mode \"%s\", %d thread%s%s)\n", x$mode,
              x$threads, if (x$threads == 1L) "" else "s", matrix_note(x, ", ")))
  cat(sprintf("  %d of %d candidates selected for %d clients%s\n",
              length(x$selected), x$m, x$n,
              if (length(x$initial)) sprintf(", %d already open", length(x$initial)) else ""))
  cat(sprintf("  f(S) = %.6g, bound = %.6g\n", x$objective, x$bound))
  cat("  ", certificate_line(x, bound_size(x)), "\n", sep = "")
  cat(kernel_line(x), coverage_line(x), sep = "")
  if (!is.null(x$budget))
    cat(sprintf("  budget = %.6g, spent %.6g (%s rule)\n", x$budget, x$spent, x$rule))
  cat(sprintf("  %.3g s, %.0f gain evaluations\n", x$seconds, x$evaluations))
  shown <- utils::head(x$selected, 10L)
  cat("  selected:", shown, if (length(x$selected) > 10L) "...", "\n")
  cat(scale_hint(x$spread), id_hint(x$id_columns), pairs_hint(x), sep = "")
  invisible(x)
}

# ", single-precision matrix" where the solve held one, ", no matrix"
# where "dc" computed its gains from the points.
matrix_note <- function(x, sep) {
  if (isTRUE(x$streamed)) return(paste0(sep, "no matrix: gains from the points"))
  if (identical(x$precision, "single")) paste0(sep, "single-precision matrix") else ""
}

# A matrix-free mode that evaluated more kernel pairs than building the
# n x m matrix once takes (what "dc" does): its cluster bounds pruned
# little, as in high dimension or under a wide kernel.
pairs_hint <- function(x) {
  if (!x$mode %in% facility_modes("matrix-free") || is.null(x$pairs)) return(character())
  cells <- as.numeric(x$n) * x$m
  if (!(x$pairs > cells)) return(character())
  sprintf("  hint: %.1f times the n x m kernel evaluations of one exhaustive pass; mode = \"dc\" makes them once (a %s matrix) and is exact\n",
          x$pairs / cells, format_bytes(8 * cells))
}

# A column counting the rows is an identifier the distances take as a
# feature.
id_hint <- function(columns) {
  if (!length(columns)) return(character())
  sprintf("  hint: column%s %s count%s the rows (1, 2, 3, ...): an identifier, not a feature? Drop it from X\n",
          if (length(columns) > 1L) "s" else "", paste0("'", columns, "'", collapse = ", "),
          if (length(columns) > 1L) "" else "s")
}

# A hint, not a rescaling: beyond 100 times the narrowest column's
# variance, the widest column alone decides the distances and the
# median-heuristic sigma.
scale_hint <- function(spread) {
  if (is.null(spread) || is.na(spread) || spread <= 100) return(character())
  sprintf("  hint: the columns' variances differ %.0f-fold, so the widest decides the distances; scale(X) weighs the columns alike\n",
          spread)
}

# "sigma = 0.82 (median heuristic)": the kernel's width and how it was chosen.
kernel_line <- function(x, prefix = "  ") {
  if (is.null(x$sigma) || is.na(x$sigma)) return(character())
  sprintf("%ssigma = %.4g (%s)\n", prefix, x$sigma,
          if (is.null(x$sigma_rule) || is.na(x$sigma_rule)) "given" else x$sigma_rule)
}

# "f(S) / f(V) = 0.9 (coverage 0.9 asked)" where f(V) is known.
coverage_line <- function(x, prefix = "  ") {
  if (is.null(x$objective_all) || is.na(x$objective_all)) return(character())
  sprintf("%sf(S) / f(V) = %.4f%s\n", prefix, coverage_share(x$objective, x),
          if (is.null(x$coverage)) "" else sprintf(" (coverage %g asked)", x$coverage))
}

coverage_share <- function(f, x) {
  if (is.null(x$objective_all)) return(rep(NA_real_, length(f)))
  if (isTRUE(x$objective_all == 0)) rep(1, length(f)) else f / x$objective_all
}

# The size of the sets `bound` is for: k, or the picks a `coverage` stopped at.
bound_size <- function(x) if (is.null(x$coverage)) x$k else length(x$selected)

# "f(S) / bound = 0.953: no set of 100 does better than 1.05 times this
# one" for `x` (its objective and bound), or why there is no such
# statement; a bound that is only the cap, and proves less than the
# default effort aims for, says so, and how to get a tighter one.  Lines
# after the first start with `prefix`.  Shared with facility_bound().
certificate_line <- function(x, k, prefix = "  ") {
  ratio <- certificate(x)
  if (is.na(ratio)) return("f(S) / bound: none (this mode gives no upper bound)")
  if (ratio >= 1) return(sprintf("f(S) / bound = 1: no set of %d does better than this one", k))
  if (bound_is_cap(x) && ratio < certify_goal_default) {
    how <- if (identical(x$mode, "stochastic")) "facility_bound(X, fit)"
           else paste0("facility_bound(X, fit) or\n", prefix, "facility_control(certify = 20)")
    return(sprintf(paste0("f(S) / bound = %.3f, but the bound is only the cap (the clients' total weight):\n",
                          "%sthe default effort found none below it; %s computes one"), ratio, prefix, how))
  }
  sprintf("f(S) / bound = %.3f: no set of %d does better than %.3f times this one",
          ratio, k, 1 / ratio)
}

# Is the bound no lower than the cap (the clients' total weight)?
bound_is_cap <- function(x) {
  cap <- x$bound_cap
  !is.null(cap) && !is.na(cap) && x$bound >= cap * (1 - 1e-12)
}

# "online 5034.5, LP dual not run": the bounds behind `bound`.
bound_parts <- function(x) {
  online <- if (is.finite(x$bound_online)) sprintf("%.6g", x$bound_online) else "none"
  dual <- if (x$dual_steps > 0L)
    sprintf("%.6g after %d step%s", x$bound_dual, x$dual_steps, if (x$dual_steps == 1L) "" else "s")
  else "not run"
  sprintf("online %s, LP dual %s", online, dual)
}

certificate <- function(x) {
  if (!is.finite(x$bound)) return(NA_real_)   # no bound (mode "stochastic")
  if (x$bound > 0) x$objective / x$bound else 1
}

#' Summary of a facility location result
#'
#' @param object A `facility_greedy` result.
#' @param ... Unused.
#' @return An object of class `summary.facility_greedy`: the settings
#'   (`sigma` and `sigma_rule` among them), the objective, its bound and
#'   certificate `objective / bound` (and the online and LP-dual bounds
#'   behind it, see [facility_bound()]), \eqn{f(V)} (`objective_all`) and the
#'   `coverage` asked for, the work done and the table of the picks of
#'   [as.data.frame.facility_greedy()], and with a budget (see
#'   [facility_greedy()]) `budget`, `spent` and `rule`, else `NULL`.
#' @export
summary.facility_greedy <- function(object, ...) {
  structure(list(mode = object$mode, threads = object$threads, precision = object$precision,
                 streamed = object$streamed,
                 n = object$n,
                 m = object$m, k = object$k, size = bound_size(object), sigma = object$sigma,
                 sigma_rule = object$sigma_rule, objective_all = object$objective_all,
                 coverage = object$coverage, objective = object$objective,
                 bound = object$bound, bound_cap = object$bound_cap,
                 certificate = certificate(object),
                 bound_online = object$bound_online, bound_dual = object$bound_dual,
                 dual_steps = object$dual_steps, bound_seconds = object$bound_seconds,
                 bound_evaluations = object$bound_evaluations,
                 seconds = object$seconds, evaluations = object$evaluations,
                 pairs = object$pairs, budget = object$budget, spent = object$spent,
                 rule = object$rule, picks = as.data.frame(object)),
            class = "summary.facility_greedy")
}

#' @export
print.summary.facility_greedy <- function(x, ...) {
  cat(sprintf("Greedy facility location, mode \"%s\", %d thread%s%s\n", x$mode,
              x$threads, if (x$threads == 1L) "" else "s", matrix_note(x, ", ")))
  cat(sprintf("Clients: %d  Candidates: %d  %s
", x$n, x$m,
              if (is.null(x$coverage)) sprintf("k: %d", x$k)
              else sprintf("selected: %d to reach coverage %g (at most %d)", x$size, x$coverage, x$k)))
  cat(sprintf("f(S): %.6g  upper bound: %.6g (%s)
", x$objective, x$bound, bound_parts(x)))
  cat(certificate_line(x, x$size, prefix = ""), "
", sep = "")
  cat(sprintf("The bound took %.3g s and %.0f evaluations\n", x$bound_seconds,
              x$bound_evaluations))
  cat(kernel_line(x, "Kernel width: "), coverage_line(x, "Coverage: "), sep = "")
  if (!is.null(x$budget))
    cat(sprintf("Budget: %.6g  spent: %.6g  rule: %s\n", x$budget, x$spent, x$rule))
  cat(sprintf("Time: %.3g s  gain evaluations: %.0f  kernel evaluations: %.0f\n",
              x$seconds, x$evaluations, x$pairs))
  cat("Picks:\n")
  print(utils::head(x$picks, 10L), row.names = FALSE)
  if (nrow(x$picks) > 10L) cat(sprintf("... and %d more\n", nrow(x$picks) - 10L))
  invisible(x)
}

#' The picks of a facility location result as a data frame
#'
#' @param x A `facility_greedy` result.
#' @param row.names,optional Unused (the rows are the picks, in order).
#' @param ... Unused.
#' @return A data frame with one row per pick, in selection order:
#'   \item{order}{Position in the selection, 1, 2, ...}
#'   \item{index}{Index of the pick among the candidates (`x$selected`).}
#'   \item{name}{Its name, when the candidates have names (row names of
#'     `X` or `candidates`, column names of `similarity`, labels of a
#'     `dist`); absent otherwise.}
#'   \item{latitude, longitude}{Where it lies, for points of [geo_points()].}
#'   \item{gain}{Its marginal gain when it was made.}
#'   \item{objective}{\eqn{f(S)} after it, the `initial` facilities
#'     included.}
#'   \item{coverage}{That \eqn{f(S)} as a share of \eqn{f(V)}, the
#'     objective with every candidate open (`x$objective_all`); `NA` where
#'     \eqn{f(V)} is not known (points with separate `candidates` and no
#'     `coverage` asked for).}
#' @seealso [facility_greedy()], [summary.facility_greedy()]
#' @export
#' @examples
#' fit <- facility_greedy(faithful, coverage = 0.9, threads = 1)
#' head(as.data.frame(fit))
as.data.frame.facility_greedy <- function(x, row.names = NULL, optional = FALSE, ...) {
  objective <- start_objective(x) + cumsum(x$gains)
  out <- data.frame(order = seq_along(x$selected), index = x$selected)
  if (!is.null(x$labels)) out$name <- x$labels[x$selected]
  if (isTRUE(x$geo) && length(x$selected)) out <- cbind(out, geo_degrees(x$facilities))
  out$gain <- x$gains
  out$objective <- objective
  out$coverage <- coverage_share(objective, x)
  out
}

# graphics::plot() with a method's defaults, which the caller's graphical
# parameters in `...` replace: passed side by side they would collide ("formal
# argument matched by multiple actual arguments").  Shared by the plot methods.
plot_with_defaults <- function(defaults, ...) {
  dots <- list(...)
  do.call(graphics::plot, c(defaults[setdiff(names(defaults), names(dots))], dots))
}

# An x-axis of whole numbers up to `n` (passes): pretty() alone ticks 1.5.
whole_ticks <- function(n) {
  at <- pretty(c(1, n))
  graphics::axis(1, at = at[at == round(at) & at >= 1 & at <= n])
}
