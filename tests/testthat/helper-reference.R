# Plain-R oracles, independent of the C code: the similarity matrix, the
# objective and greedy with the lowest-index tie rule.

ref_similarity <- function(X, Y = X, sigma) {
  X <- as.matrix(X)
  Y <- as.matrix(Y)
  D <- vapply(seq_len(nrow(Y)), function(j) colSums((t(X) - Y[j, ])^2), numeric(nrow(X)))
  D <- matrix(D, nrow(X), nrow(Y))
  # 1 / ((2 sigma) sigma), as C evaluates 1.0 / (2.0 * sigma * sigma)
  exp(-D * (1 / (2 * sigma * sigma)))
}

ref_objective <- function(W, S, weights = rep(1, nrow(W))) {
  if (length(S) == 0L) return(0)
  sum(weights * apply(W[, S, drop = FALSE], 1, max))
}

# Marginal gains of all candidates, accumulated client by client in double
# precision (sum() and colSums() use long double, which would round
# mathematically tied gains apart differently than any double-precision code).
ref_gains <- function(W, cover, weights = rep(1, nrow(W))) {
  g <- numeric(ncol(W))
  for (i in seq_len(nrow(W))) g <- g + weights[i] * pmax(W[i, ] - cover[i], 0)
  g
}

# Greedy: each round the open candidate of largest marginal gain, lowest
# index among ties (which.max returns the first maximum).
ref_greedy <- function(W, k, weights = rep(1, nrow(W)), initial = integer()) {
  cover <- if (length(initial)) apply(W[, initial, drop = FALSE], 1, max) else rep(0, nrow(W))
  open <- rep(TRUE, ncol(W))
  open[initial] <- FALSE
  selected <- integer()
  gains <- numeric()
  for (round in seq_len(k)) {
    g <- ref_gains(W, cover, weights)
    g[!open] <- -Inf
    j <- which.max(g)
    selected <- c(selected, j)
    gains <- c(gains, g[j])
    open[j] <- FALSE
    cover <- pmax(cover, W[, j])
  }
  list(selected = selected, gains = gains,
       objective = ref_objective(W, c(initial, selected), weights))
}

# Exhaustive optimum over all k-subsets (tiny problems only).
ref_optimum <- function(W, k, weights = rep(1, nrow(W))) {
  sets <- utils::combn(ncol(W), k)
  max(apply(sets, 2, function(S) ref_objective(W, S, weights)))
}
