# What facility_greedy() and facility_objective() take as the source of the
# similarities: points (a matrix or data frame), a similarity matrix, or a
# `dist` object turned into a similarity matrix by the kernel.

# list(X, similarity, sigma, sigma_rule, source, labels): the points (NULL
# for a dist), the similarity to optimise (NULL for the kernel of X), the
# kernel width (NA when a given similarity makes it irrelevant), how it was
# chosen ("median heuristic" or "given"), the source and the candidates'
# names.  sigma = NULL asks for the median heuristic of facility_sigma(),
# on `threads` (validated) threads.
facility_input <- function(X, sigma, similarity, candidates, threads) {
  rule <- if (is.null(sigma)) "median heuristic" else "given"
  if (inherits(X, "dist")) {
    if (!is.null(similarity))
      abort_argument("similarity", "must be NULL when `X` is a `dist`, which gives the similarities")
    if (!is.null(candidates))
      abort_argument("candidates", "must be NULL when `X` is a `dist`: its points are the candidates")
    D <- check_dist(X, "X")
    sigma <- resolve_sigma(sigma, D, threads)
    return(list(X = NULL, similarity = dist_similarity(D, sigma), sigma = sigma,
                sigma_rule = rule, source = "dist", labels = candidate_labels(attr(D, "Labels"))))
  }
  if (!is.null(similarity)) {
    if (!is.null(sigma)) check_sigma(sigma)
    return(list(X = X, similarity = similarity, sigma = NA_real_, sigma_rule = NA_character_,
                source = "similarity", labels = candidate_labels(colnames(similarity))))
  }
  geo <- is_geo(X) && (is.null(candidates) || is_geo(candidates))
  X <- check_points(X, "X")
  list(X = X, similarity = NULL, sigma = resolve_sigma(sigma, X, threads), sigma_rule = rule,
       source = "points", labels = candidate_labels(rownames(if (is.null(candidates)) X else candidates)),
       geo = geo, spread = if (!geo) spread_ratio(X), id_columns = id_columns(X))
}

# Columns that count the rows (k, k + 1, k + 2, ...): identifiers, which the
# kernel would take as a feature (an id column beside iris moves the median
# heuristic from 2.36 to 44).  Names, or numbers where the columns have none.
id_columns <- function(X) {
  if (ncol(X) < 2L || nrow(X) < 3L) return(character())
  # only columns whose first step is 1 are read whole: 0.1 s fewer at
  # 10,000 x 1024, where every column copied cost a pass over X
  start <- which(X[2L, ] - X[1L, ] == 1)
  counts <- start[vapply(start, function(j) all(diff(X[, j]) == 1), NA)]
  names <- colnames(X)
  if (is.null(names)) names <- as.character(seq_len(ncol(X)))
  names[counts]
}

# Names that name the candidates: none where they only repeat the index
# (a data frame's row numbers, which dist() and as.matrix() pass on).
candidate_labels <- function(labels) {
  if (identical(labels, as.character(seq_along(labels)))) NULL else labels
}

# How many times the widest column's variance is the narrowest's (on at
# most 2000 evenly spaced rows): beyond 100 (standard deviations 10 times
# apart: quakes' depth beside latitude, USArrests' Assault beside Murder)
# the widest decides the squared distances.
spread_ratio <- function(X) {
  if (ncol(X) < 2L) return(NA_real_)
  rows <- unique(round(seq(1, nrow(X), length.out = min(nrow(X), 2000L))))
  Y <- X[rows, , drop = FALSE]
  centred <- Y - rep(colMeans(Y), each = nrow(Y))   # sweep()'s bits, without its aperm()
  spread <- colMeans(centred^2)   # variances times (n - 1) / n
  spread <- spread[is.finite(spread) & spread > 0]
  if (length(spread) < 2L) NA_real_ else max(spread) / min(spread)
}

check_dist <- function(D, arg) {
  n <- attr(D, "Size")
  if (!is.numeric(D) || !is.numeric(n) || length(n) != 1L || is.na(n) ||
      length(D) != n * (n - 1) / 2)
    abort_argument(arg, "must be a `dist` object as stats::dist() makes")
  if (n < 1L) abort_argument(arg, "must hold at least one point")
  if (!.Call(C_facloc_all_finite, as.double(D)))
    abort_argument(arg, "must not contain NA, NaN or infinite distances")
  if (any(D < 0)) abort_argument(arg, "must hold non-negative distances")
  D
}

# The entries of D between the points `keep` (increasing), or all of them.
dist_entries <- function(D, keep = NULL) {
  if (is.null(keep)) return(as.vector(D))
  n <- attr(D, "Size")
  pair <- utils::combn(length(keep), 2L)
  i <- keep[pair[1L, ]]
  j <- keep[pair[2L, ]]
  as.vector(D)[n * (i - 1) - i * (i - 1) / 2 + j - i]
}

# s_ij = exp(-d_ij^2 / (2 sigma^2)), the kernel of the points, as a dense
# n x n matrix (1 on the diagonal).
dist_similarity <- function(D, sigma) {
  n <- attr(D, "Size")
  check_memory(3 * 8 * as.double(n)^2, sprintf("a `dist` of %d points as a similarity matrix", n),
               "pass the points `X` to a matrix-free mode instead")
  S <- as.matrix(D)
  dimnames(S) <- NULL
  exp(-(S * S) * (1 / (2 * sigma * sigma)))
}
