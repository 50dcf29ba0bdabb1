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

# Exhaustive optimum over all k-subsets of the candidates not in `initial`,
# those open too (tiny problems only).
ref_optimum <- function(W, k, weights = rep(1, nrow(W)), initial = integer()) {
  free <- setdiff(seq_len(ncol(W)), initial)
  sets <- if (length(free) == 1L) matrix(free) else utils::combn(free, k)
  max(apply(sets, 2, function(S) ref_objective(W, c(initial, S), weights)))
}

# The LP dual of facility location at u: sum_i a_i u_i plus the k largest
# c_j(u) = sum_i a_i max(0, w_ij - u_i) over the candidates not in
# `initial`, summed client by client in double precision.
ref_dual <- function(W, u, k, weights = rep(1, nrow(W)), initial = integer()) {
  c <- numeric(ncol(W))
  for (i in seq_len(nrow(W))) c <- c + weights[i] * pmax(W[i, ] - u[i], 0)
  c[initial] <- -Inf
  sum(weights * u) + sum(sort(c, decreasing = TRUE)[seq_len(k)])
}

# Budgeted greedy (Leskovec et al. 2007): each step the candidate that fits
# the remaining budget with the largest gain (rule "unit-cost") or gain /
# cost ("cost-benefit"), lowest index among ties, until nothing that fits
# adds anything or k are picked.
ref_budget_pass <- function(W, cost, budget, rule, k = ncol(W),
                            weights = rep(1, nrow(W)), initial = integer()) {
  cover <- if (length(initial)) apply(W[, initial, drop = FALSE], 1, max) else rep(0, nrow(W))
  open <- rep(TRUE, ncol(W))
  open[initial] <- FALSE
  left <- budget
  selected <- integer()
  while (length(selected) < k) {
    g <- colSums(weights * pmax(W - cover, 0))
    key <- if (rule == "cost-benefit") g / cost else g
    key[!open | cost > left] <- -Inf
    j <- which.max(key)
    if (!is.finite(key[j]) || key[j] <= 0) break
    selected <- c(selected, j)
    open[j] <- FALSE
    left <- left - cost[j]
    cover <- pmax(cover, W[, j])
  }
  list(selected = selected, objective = ref_objective(W, c(initial, selected), weights))
}

# The better of the two passes, the unit-cost one on ties.
ref_budget <- function(W, cost, budget, ...) {
  uc <- ref_budget_pass(W, cost, budget, "unit-cost", ...)
  cb <- ref_budget_pass(W, cost, budget, "cost-benefit", ...)
  if (cb$objective > uc$objective) c(cb, rule = "cost-benefit") else c(uc, rule = "unit-cost")
}

# Most similar of the open facilities (columns `open` of W) for each row,
# the first among ties.
ref_assign <- function(W, open) {
  S <- W[, open, drop = FALSE]
  index <- max.col(S, ties.method = "first")
  list(index = index, similarity = S[cbind(seq_len(nrow(S)), index)])
}

# The median heuristic: the median Euclidean distance over the pairs of
# rows of X (of the rows `seed` draws, when there are more than `rows`), the
# distances summed coordinate by coordinate here, not by stats::dist().
ref_median_width <- function(X, rows = 2000, seed = 1) {
  X <- as.matrix(X)
  if (nrow(X) > rows) {
    old <- RNGkind("Mersenne-Twister", "Inversion", "Rejection")
    on.exit(RNGkind(old[1], old[2], old[3]))
    set.seed(seed)
    X <- X[sort(sample.int(nrow(X), rows)), , drop = FALSE]
  }
  pairs <- which(upper.tri(diag(nrow(X))), arr.ind = TRUE)
  stats::median(sqrt(rowSums((X[pairs[, 1], , drop = FALSE] - X[pairs[, 2], , drop = FALSE])^2)))
}

# Submodular cover by greedy: the shortest prefix of plain-R greedy whose
# f(S) reaches q f(V), f(V) the objective of every candidate.
ref_cover <- function(W, q, weights = rep(1, nrow(W)), initial = integer()) {
  full <- ref_greedy(W, ncol(W) - length(initial), weights, initial)
  target <- q * ref_objective(W, seq_len(ncol(W)), weights)
  f <- vapply(seq_along(full$selected), function(t)
    ref_objective(W, c(initial, full$selected[seq_len(t)]), weights), 0)
  t <- which(f >= target)[1]
  list(selected = full$selected[seq_len(t)], gains = full$gains[seq_len(t)],
       objective = f[t], total = target / q)
}
