# Small data sets for the exactness tests: different n, d and sigma, and one
# (every grid point twice) whose gains tie exactly.
exact_cases <- function() {
  set.seed(42)
  grid <- as.matrix(expand.grid(1:4, 1:4))
  list(
    gaussian = list(X = matrix(rnorm(60 * 3), 60, 3), sigma = 1, k = 8),
    line = list(X = matrix(runif(45), 45, 1), sigma = 0.1, k = 6),
    ties = list(X = rbind(grid, grid), sigma = 1.5, k = 10),
    wide = list(X = matrix(rnorm(80 * 8, sd = 2), 80, 8), sigma = 3, k = 12)
  )
}

# Settings under which `mode` is plain greedy: the matrix-free modes without
# relaxations, "stochastic" sampling every candidate.
greedy_control <- function(mode) {
  if (mode %in% facility_modes("matrix-free"))
    return(facility_control(batch = 1, eps = 0, tau = 1))
  if (mode == "stochastic") return(facility_control(epsilon = 0))
  facility_control()
}
