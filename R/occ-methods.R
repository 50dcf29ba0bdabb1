# print, summary, plot and predict for dpmeans(), ofl() and bpmeans() results.

occ_title <- function(x) {
  switch(class(x)[1], dpmeans = "DP-means", ofl = "Online facility location",
         bpmeans = "BP-means")
}

occ_how <- function(x) {
  where <- if (!is.null(x$epochs$bytes_sent)) sprintf("%d cluster workers", x$workers)
           else sprintf("%d thread%s", x$threads, if (x$threads == 1L) "" else "s")
  if (x$method == "serial") sprintf("serial, %s", where)
  else sprintf("OCC, P = %d, batch = %d, %s", x$workers, x$batch, where)
}

occ_k <- function(x) {
  if (inherits(x, "bpmeans")) nrow(x$features) else nrow(x$centers)
}

#' @export
print.occ_fit <- function(x, ...) {
  what <- if (inherits(x, "bpmeans")) "features" else if (inherits(x, "ofl")) "facilities" else "clusters"
  cat(sprintf("%s (%s)\n", occ_title(x), occ_how(x)))
  cat(sprintf("  %d points in %d dimensions, lambda = %g: %d %s\n", x$n, x$d,
              x$lambda, occ_k(x), what))
  cat(sprintf("  objective %.6g after %d pass%s%s, %.3g s\n", x$objective,
              x$iterations, if (x$iterations == 1L) "" else "es",
              if (x$converged || inherits(x, "ofl")) "" else " (not converged)", x$seconds))
  cat(sprintf("  %d proposals, %d accepted, %d rejected over %d epochs\n",
              sum(x$epochs$proposed), sum(x$epochs$accepted),
              sum(x$epochs$rejected), nrow(x$epochs)))
  invisible(x)
}

#' Summary of an OCC clustering or feature result
#'
#' @param object A result of [dpmeans()], [ofl()] or [bpmeans()].
#' @param ... Unused.
#' @return An object of class `summary.occ_fit`: the settings, the
#'   objective after each pass, per-pass totals of proposals, acceptances,
#'   rejections and seconds (`passes`), and the cluster sizes (feature
#'   counts for BP-means).
#' @export
summary.occ_fit <- function(object, ...) {
  e <- object$epochs
  passes <- data.frame(
    iteration = seq_len(object$iterations), objective = object$objectives,
    epochs = as.vector(tabulate(e$iteration, object$iterations)),
    proposed = as.vector(tapply(e$proposed, factor(e$iteration, seq_len(object$iterations)), sum)),
    accepted = as.vector(tapply(e$accepted, factor(e$iteration, seq_len(object$iterations)), sum)),
    seconds = as.vector(tapply(e$seconds, factor(e$iteration, seq_len(object$iterations)), sum)))
  passes$rejected <- passes$proposed - passes$accepted
  sizes <- if (inherits(object, "bpmeans")) colSums(object$Z) else object$size
  structure(list(title = occ_title(object), how = occ_how(object), n = object$n,
                 d = object$d, lambda = object$lambda, k = occ_k(object),
                 objective = object$objective, converged = object$converged,
                 passes = passes, sizes = sizes, seconds = object$seconds,
                 bound = object$workers * object$batch),
            class = "summary.occ_fit")
}

#' @export
print.summary.occ_fit <- function(x, ...) {
  cat(sprintf("%s (%s)\n", x$title, x$how))
  cat(sprintf("Points: %d  Dimensions: %d  lambda: %g  K: %d\n", x$n, x$d, x$lambda, x$k))
  cat(sprintf("Objective: %.8g  Time: %.3g s%s\n", x$objective, x$seconds,
              if (x$converged) "" else "  (stopped at max_iter)"))
  cat(sprintf("Rejections per epoch are at most P x batch = %d\n", x$bound))
  cat("Passes:\n")
  print(utils::head(x$passes, 20L), row.names = FALSE)
  cat("Sizes:", utils::head(sort(x$sizes, decreasing = TRUE), 20L),
      if (length(x$sizes) > 20L) "...", "\n")
  invisible(x)
}

#' Plot an OCC clustering or feature result
#'
#' Two panels: the objective after each pass, and the running totals of
#' proposals and rejections over the epochs (they rise while clusters are
#' being discovered and stay flat after).
#'
#' @param x A result of [dpmeans()], [ofl()] or [bpmeans()].
#' @param ... Further graphical parameters passed to [graphics::plot()];
#'   they override the method's own (`main`, `col`, ...).
#' @return `x`, invisibly.
#' @export
plot.occ_fit <- function(x, ...) {
  old <- graphics::par(mfrow = c(1, 2))
  on.exit(graphics::par(old))
  plot_with_defaults(list(x = seq_len(x$iterations), y = x$objectives, type = "b",
                          pch = 20, xlab = "pass", ylab = "objective", xaxt = "n",
                          main = "Objective"), ...)
  whole_ticks(x$iterations)
  # running totals: per-epoch counts are one spike at the first epochs, where
  # the clusters are discovered, and zeros after
  e <- x$epochs
  epoch <- seq_len(nrow(e))
  proposed <- cumsum(e$proposed)
  rejected <- cumsum(e$rejected)
  plot_with_defaults(list(x = epoch, y = proposed, type = "s", ylim = c(0, max(1, proposed)),
                          xlab = "epoch", ylab = "count since the start",
                          main = "Proposals and rejections"), ...)
  graphics::lines(epoch, rejected, type = "s", col = "red", lty = 2)
  graphics::legend("bottomright", c("proposed", "rejected"), col = c("black", "red"),
                   lty = c(1, 2), bty = "n", cex = 0.8)
  invisible(x)
}

#' Assign new points with an OCC clustering or feature result
#'
#' DP-means and OFL: the nearest center (no cluster is opened). BP-means:
#' feature memberships set greedily, feature by feature, as in a pass (no
#' feature is created).
#'
#' @param object A result of [dpmeans()], [ofl()] or [bpmeans()].
#' @param newdata Numeric matrix or data frame with the columns of the
#'   data the model was fitted on.
#' @param threads Number of threads.
#' @param ... Reserved for future arguments; must be empty.
#' @return An integer vector of clusters, or for BP-means an n x K 0/1
#'   matrix.
#' @export
predict.occ_fit <- function(object, newdata, threads = facloc_threads(), ...) {
  check_dots_empty(...)
  if (missing(newdata)) abort_missing("newdata")
  X <- check_points(newdata, "newdata")
  if (ncol(X) != object$d)
    abort_argument("newdata", sprintf("must have the %d columns of the fitted data, not %d",
                                      object$d, ncol(X)))
  threads <- resolve_threads(threads)
  model <- if (inherits(object, "bpmeans")) object$features else object$centers
  kind <- if (inherits(object, "bpmeans")) 2L else 0L
  out <- .Call(C_facloc_occ_predict, kind, point_rows(X, threads), t(model), threads)
  occ_check_status(out$status, "predict()")
  out$assignment
}
