# The LP dual's step rule (src/dual.c) against plain subgradient descent
# (issue 54): the same B(u), the same start (u0 = the coverage of greedy's
# set, where B(u0) is the online bound of its last round), the same number
# of steps.  facloc's steps come from facility_bound()'s dual_trace; the
# subgradient runs here, in plain R on the exact matrix, with two step
# rules:
#   - Polyak's, with target f(S), the best lower bound known (the optimum
#     of the dual is unknown), its factor lambda halved after 3 steps
#     without progress (Held and Karp's practice);
#   - diminishing, alpha_t = alpha_0 / sqrt(t), alpha_0 Polyak's first step.
# B(u) = sum_i a_i u_i + the k largest c_j(u), c_j(u) = sum_i a_i
# max(0, w_ij - u_i); a subgradient is a_i (1 - #{j in the top k: w_ij >
# u_i}); u is kept at or above 0.  Each subgradient step is one pass over
# the candidates; a facloc step is one pass at three step lengths, plus
# rises that evaluate only candidates that may enter the top k.
#
#   Rscript inst/bench/dual-subgradient.R [out.csv] [steps]
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results", "dual-subgradient.csv")
steps <- if (length(args) >= 2) as.integer(args[2]) else 20L
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()

dual_value <- function(W, u, k) {
  c <- colSums(pmax(W - u, 0))
  top <- order(c, decreasing = TRUE)[seq_len(k)]
  list(B = sum(u) + sum(c[top]), top = top)
}

subgradient <- function(W, u, k, f, steps, rule) {
  v <- dual_value(W, u, k); best <- v$B; trace <- numeric(steps)
  lambda <- 1; stall <- 0; alpha0 <- NA
  for (t in seq_len(steps)) {
    g <- 1 - rowSums(W[, v$top, drop = FALSE] > u)
    if (all(g == 0)) { trace[t:steps] <- best; break }
    polyak <- (v$B - f) / sum(g^2)
    if (is.na(alpha0)) alpha0 <- polyak
    alpha <- if (rule == "polyak") lambda * polyak else alpha0 / sqrt(t)
    u <- pmax(u - alpha * g, 0)
    v <- dual_value(W, u, k)
    if (v$B < best) { best <- v$B; stall <- 0 } else if ((stall <- stall + 1) >= 3) { lambda <- lambda / 2; stall <- 0 }
    trace[t] <- best
  }
  trace
}

one_case <- function(name, X, k, sigma_mult) {
  sigma <- sigma_mult * facility_sigma(X)
  W <- exp(-as.matrix(dist(X))^2 / (2 * sigma^2))
  fit <- facility_greedy(X, k, mode = "dc", sigma = sigma, threads = 1,
                         control = facility_control(certify = 0))
  b <- facility_bound(X, fit, control = facility_control(certify = steps))
  u0 <- apply(W[, fit$selected, drop = FALSE], 1, max)
  f <- fit$objective
  at <- function(trace, s) f / trace[min(s, length(trace))]
  fl <- b$dual_trace[-1]
  po <- subgradient(W, u0, k, f, steps, "polyak")
  di <- subgradient(W, u0, k, f, steps, "diminishing")
  data.frame(data = name, n = nrow(X), d = ncol(X), k = k, sigma_mult = sigma_mult,
             online = f / b$dual_trace[1],
             facloc_5 = at(fl, 5), polyak_5 = at(po, 5), diminishing_5 = at(di, 5),
             facloc_20 = at(fl, steps), polyak_20 = at(po, steps), diminishing_20 = at(di, steps))
}

cases <- list()
for (p in c("medium", "heavy_skew", "uniform", "dense"))
  for (s in c(NA, 1)) for (k in c(20, 100))
    cases[[length(cases) + 1]] <- list(p, k, s)
rows <- NULL
for (a in cases) {
  X <- facility_data(a[[1]], n = 2000)
  # sigma = 20 (the specification's) as a multiple of the median heuristic
  mult <- if (is.na(a[[3]])) 20 / facility_sigma(X) else 1
  rows <- rbind(rows, cbind(one_case(a[[1]], X, a[[2]], mult), sigma = if (is.na(a[[3]])) "20" else "median"))
}
for (r in list(list("quakes (long, lat)", as.matrix(quakes[, 1:2]), 50),
               list("faithful", as.matrix(faithful), 20),
               list("iris", as.matrix(iris[, 1:4]), 10),
               list("USArrests", as.matrix(USArrests), 5)))
  rows <- rbind(rows, cbind(one_case(r[[1]], r[[2]], r[[3]], 1), sigma = "median"))
print(rows, digits = 4, row.names = FALSE)
write.csv(rows, out, row.names = FALSE)
