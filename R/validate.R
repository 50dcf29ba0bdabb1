# Argument checks shared by every exported function.  Each names the
# argument it rejects (matrixStats style) and raises a facloc_error_argument.

# missing(x) sees through the caller's promise: a required argument the user
# left out gets a classed error naming it rather than R's plain error.
abort_missing <- function(arg) abort_argument(arg, "is missing, with no default")

# `max` defaults to the largest R integer, which the result must fit; the
# messages do not quote that machine limit.  With `cap`, larger values are
# taken as `max` instead of refused.  `hint` ends every message: what else
# the user can do.
check_count <- function(x, arg, min = 1, max = .Machine$integer.max, cap = FALSE,
                        hint = "") {
  if (missing(x)) abort_missing(arg)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) ||
      x != round(x))
    abort_argument(arg, paste0("must be a single whole number", hint))
  if (cap && x > max) x <- max
  if (x < min || x > max) {
    range <- if (max < .Machine$integer.max) sprintf("between %s and %s", format(min), format(max))
             else if (x < min) sprintf("at least %s", format(min))
             else "a smaller number"
    abort_argument(arg, sprintf("must be %s, not %s%s", range, format(x), hint))
  }
  as.integer(x)
}

check_positive <- function(x, arg) {
  if (missing(x)) abort_missing(arg)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x <= 0)
    abort_argument(arg, "must be a single positive finite number")
  as.double(x)
}

# The RBF width: exp(-d2 / (2 sigma^2)) needs 1 / (2 sigma^2) finite and
# non-zero, or 0 * Inf and Inf * 0 turn similarities into NaN.
check_sigma <- function(x, arg = "sigma") {
  x <- check_positive(x, arg)
  inv <- 1 / (2 * x^2)
  if (!is.finite(inv) || inv <= 0)
    abort_argument(arg, sprintf("must be between %.3g and %.3g (2 %s^2 must be a finite positive number), not %s",
                                sqrt(0.5 / .Machine$double.xmax), sqrt(.Machine$double.xmax / 2),
                                arg, format(x)))
  x
}

check_fraction <- function(x, arg, lower_open = FALSE) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x < 0 || x > 1 ||
      (lower_open && x == 0))
    abort_argument(arg, sprintf("must be a single number in %s0, 1]",
                                if (lower_open) "(" else "["))
  as.double(x)
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    abort_argument(arg, "must be TRUE or FALSE")
  x
}

# A default written as match.arg() takes it, the whole `choices`, is the first.
check_choice <- function(x, choices, arg) {
  if (identical(x, choices)) return(choices[1])
  if (!is.character(x) || length(x) != 1L || is.na(x) || !(x %in% choices))
    abort_argument(arg, sprintf("must be one of %s",
                                paste0("\"", choices, "\"", collapse = ", ")))
  x
}

# The C core walks the points in blocks with int counters, which must not
# pass the largest int on the last block.
max_points <- .Machine$integer.max - 65535

# A numeric matrix of finite values, n x d with n, d >= 1.  Accepts
# all-numeric data frames and integer or logical-free numeric matrices.
check_points <- function(X, arg) {
  if (is.data.frame(X)) {
    numeric_cols <- vapply(X, is.numeric, logical(1))
    if (!all(numeric_cols))
      abort_argument(arg, sprintf("must have numeric columns only; column %s is not",
                                  paste0("'", names(X)[!numeric_cols][1], "'")))
    # as.matrix() makes a logical matrix of a data frame without rows
    X <- if (nrow(X) > 0L) as.matrix(X) else matrix(numeric(), 0L, ncol(X))
  }
  if (is.numeric(X) && is.null(dim(X))) X <- matrix(X, ncol = 1L)
  if (!is.matrix(X) || !is.numeric(X))
    abort_argument(arg, "must be a numeric matrix or an all-numeric data frame")
  if (nrow(X) < 1L || ncol(X) < 1L)
    abort_argument(arg, sprintf("must have at least one row and one column, not %d x %d",
                                nrow(X), ncol(X)))
  if (nrow(X) > max_points)
    abort_argument(arg, sprintf("must have at most %.0f rows, not %.0f", max_points, nrow(X)))
  if (!.Call(C_facloc_all_finite, X))
    abort_argument(arg, "must not contain NA, NaN or infinite values")
  # storage.mode<- copies X even when it is double already (X is shared
  # with the caller): 12 of the 48 ms of a serial dpmeans() at n = 1e5
  if (!is.double(X)) storage.mode(X) <- "double"
  X
}

# t(X) of a matrix from check_points(), as the C core takes points: one row
# after another.  In C by blocks of rows: R's t() took a few percent of a
# matrix-free solve at 2 threads.
point_rows <- function(X, threads) {
  .Call(C_facloc_point_rows, X, threads)
}

# Non-negative finite numeric vector of the given length.
check_weights <- function(x, n, arg) {
  if (!is.numeric(x) || length(x) != n)
    abort_argument(arg, sprintf("must be a numeric vector of length %d", n))
  if (anyNA(x) || any(!is.finite(x)) || any(x < 0))
    abort_argument(arg, "must be finite and non-negative")
  as.double(x)
}

# 1-based indices into 1..n, whole numbers, no duplicates.
check_indices <- function(x, n, arg, allow_empty = FALSE) {
  if (missing(x)) abort_missing(arg)
  if (!is.numeric(x) || (!allow_empty && length(x) < 1L))
    abort_argument(arg, "must be a non-empty vector of row indices")
  if (anyNA(x) || any(!is.finite(x)) || any(x != round(x)))
    abort_argument(arg, "must contain whole numbers only")
  if (any(x < 1 | x > n))
    abort_argument(arg, sprintf("must index rows 1 to %d", n))
  if (anyDuplicated(x))
    abort_argument(arg, "must not contain duplicates")
  as.integer(x)
}

# `X` is given, or else `similarity` must be: returns whether points are.
check_instance <- function(has_points, similarity) {
  if (!has_points && is.null(similarity))
    abort_argument("X", "must be given unless `similarity` is")
  has_points
}

check_control <- function(control) {
  if (!inherits(control, "facility_control"))
    abort_argument("control", "must be made by facility_control()")
  control
}
