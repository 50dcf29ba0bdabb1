#' Assign points to their facilities
#'
#' Assigns each row of `newdata` to its most similar open facility: the
#' selected ones and any `initial` ones. Ties go to the first facility in
#' the order `c(initial, selected)`.
#'
#' For a result computed from points (`X`) alone, `newdata` holds points with the
#' columns of `X` (pass `X` itself to assign the clients); the facilities'
#' coordinates are stored in the result, the similarity is the RBF kernel
#' with the result's `sigma`, and the most similar facility is the nearest
#' one (found in C, threads splitting the points).
#'
#' For a result optimised on a `similarity` matrix (its `sigma` is `NA`),
#' with or without points, the kernel is unknown: `newdata` must be the
#' similarity of each point to every
#' candidate, a matrix (or sparse `Matrix`) with one row per point and one
#' column per candidate, laid out like `similarity` (pass `similarity`
#' itself to assign the clients). Only the columns of the open facilities
#' are read; entries not stored in a sparse matrix are 0.
#'
#' For a result computed from a `dist` object, `newdata` holds distances
#' to the candidates: the `dist` itself (to assign the clients) or a
#' non-negative matrix with one row per point and one column per
#' candidate; they are turned into similarities by the kernel with the
#' result's `sigma`, as the `dist` was.
#'
#' @param object A `facility_greedy` result.
#' @param newdata Points (see Details), required.
#' @param threads Number of threads, by default [facloc_threads()].
#' @param ... Reserved for future arguments; must be empty.
#' @return A data frame with one row per row of `newdata`:
#'   \item{facility}{Position of the assigned facility in `object$selected`,
#'     `NA` when it is one of the `initial` facilities.}
#'   \item{candidate}{Index of the assigned facility among the candidates.}
#'   \item{similarity}{The similarity to it.}
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(400 * 2), ncol = 2)
#' fit <- facility_greedy(X, k = 4, mode = "dc", sigma = 1, threads = 1)
#' head(predict(fit, X))
#' plot(X, col = predict(fit, X)$facility, pch = 20)
#' points(fit$facilities, pch = 4, cex = 2, lwd = 3)
predict.facility_greedy <- function(object, newdata, threads = facloc_threads(), ...) {
  check_dots_empty(...)
  if (missing(newdata) || is.null(newdata))
    abort_argument("newdata", "is required: the points to assign (pass the clients to assign them)")
  open <- c(object$initial, object$selected)
  if (identical(object$source, "dist")) {
    best <- most_similar_column(distance_similarity(newdata, object$sigma), open, object$m)
  } else if (is.na(object$sigma)) {   # optimised on a similarity: no kernel to apply
    best <- most_similar_column(newdata, open, object$m)
  } else {
    best <- nearest_facility(newdata, rbind(object$initial_facilities, object$facilities),
                             object$sigma, resolve_threads(threads))
  }
  ninit <- length(object$initial)
  facility <- best$index - ninit
  facility[facility < 1L] <- NA_integer_
  data.frame(facility = facility, candidate = open[best$index],
             similarity = best$similarity)
}

nearest_facility <- function(newdata, facilities, sigma, threads) {
  points <- check_points(newdata, "newdata")
  if (ncol(points) != ncol(facilities))
    abort_argument("newdata", sprintf("must have the %d columns of the clients, not %d",
                                      ncol(facilities), ncol(points)))
  out <- .Call(C_facloc_nearest, t(points), t(facilities), sigma, threads)
  check_status(out$status, "predict()")
  out
}

# Distances to the candidates (a dist or a matrix) as kernel similarities.
distance_similarity <- function(newdata, sigma) {
  if (inherits(newdata, "dist"))
    return(dist_similarity(check_dist(newdata, "newdata"), sigma))
  D <- check_similarity(newdata, "newdata")
  exp(-(D * D) * (1 / (2 * sigma * sigma)))
}

# Column of `open` with the largest entry in each row of a similarity
# matrix (dense or sparse), the first on ties.
most_similar_column <- function(newdata, open, m) {
  sparse <- inherits(newdata, "sparseMatrix")
  newdata <- if (sparse) check_sparse_similarity(newdata, "newdata") else check_similarity(newdata, "newdata")
  if (ncol(newdata) != m)
    abort_argument("newdata", sprintf("must be a similarity matrix with one column per candidate (%d), not %d",
                                      m, ncol(newdata)))
  n <- nrow(newdata)
  index <- rep(1L, n)
  similarity <- rep(if (sparse) 0 else -Inf, n)
  for (t in seq_along(open)) {
    j <- open[t]
    if (sparse) {
      at <- seq.int(newdata@p[j] + 1L, length.out = newdata@p[j + 1L] - newdata@p[j])
      rows <- newdata@i[at] + 1L
      value <- newdata@x[at]
    } else {
      rows <- seq_len(n)
      value <- newdata[, j]
    }
    better <- value > similarity[rows]
    index[rows[better]] <- t
    similarity[rows[better]] <- value[better]
  }
  list(index = index, similarity = similarity)
}
