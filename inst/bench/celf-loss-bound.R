# A design tried for issue 53 and not built, kept with its figures
# (results/celf-loss-bound.md): can lazy greedy at the median-heuristic
# sigma skip most of its re-evaluations if each stale key is lowered by a
# lower bound on what the picks since its evaluation took from it?
#
# Pick p raises client i's coverage from m_i to m'_i; candidate j then
# loses sum_i a_i [min(w_ij, m'_i) - m_i]_+ of its gain.  Through client
# i's leaf centre c, d(i, j) <= d(j, c) + d(i, c), so w_ij >= exp(-(d(j, c)
# + r_i)^2 / (2 sigma^2)): one distance per candidate and leaf, nothing per
# pair.  The lowered key stays an upper bound, so the picks are greedy's;
# the script checks that, and that no lowered key falls below the true
# gain.  Plain-R CELF on the exact matrix (n of a few thousand), counting
# the exact re-evaluations with and without the lowered keys, and the
# terms of the lower bounds (one exp each) against the pairs (a distance
# in d dimensions and an exp each) that the skipped re-evaluations would
# have cost.
#
#   Rscript inst/bench/celf-loss-bound.R [out.csv]
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else file.path("inst", "bench", "results", "celf-loss-bound.csv")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "machine.R"))
library_facloc()

celf <- function(W, k, lower = NULL) {
  n <- ncol(W); m <- numeric(nrow(W)); key <- colSums(W); fresh <- integer(n)
  through <- integer(n); history <- list(); evaluations <- 0; terms <- 0; below <- 0
  chosen <- logical(n); picks <- integer(0)
  for (t in seq_len(k)) {
    repeat {
      key[chosen] <- -Inf
      j <- which.max(key)
      if (fresh[j] == t) break
      if (!is.null(lower) && through[j] < t - 1) {
        loss <- 0
        for (s in (through[j] + 1):(t - 1)) {
          h <- history[[s]]
          loss <- loss + sum(pmax(0, pmin(lower(j, h$i), h$after) - h$before))
          terms <- terms + length(h$i)
        }
        through[j] <- t - 1
        key[j] <- key[j] - loss * (1 - 1e-12)
        below <- below + (sum(pmax(0, W[, j] - m)) > key[j] * (1 + 1e-9))
        if (which.max(replace(key, chosen, -Inf)) != j) next
      }
      key[j] <- sum(pmax(0, W[, j] - m)); fresh[j] <- t; through[j] <- t - 1
      evaluations <- evaluations + 1
    }
    chosen[j] <- TRUE; picks <- c(picks, j)
    raised <- pmax(m, W[, j]); up <- which(raised > m)
    history[[t]] <- list(i = up, before = m[up], after = raised[up])
    m <- raised
  }
  list(picks = picks, evaluations = evaluations, terms = terms, below = below)
}

one_case <- function(name, X, k, mult) {
  n <- nrow(X); sigma <- mult * facility_sigma(X)
  W <- exp(-as.matrix(dist(X))^2 / (2 * sigma^2))
  set.seed(1)
  km <- kmeans(X, max(2, round(n / (0.35 * sqrt(n)))), iter.max = 50)
  C <- km$centers; leaf <- km$cluster
  r <- sqrt(rowSums((X - C[leaf, , drop = FALSE])^2))
  D <- sqrt(pmax(outer(rowSums(X^2), rowSums(C^2), "+") - 2 * X %*% t(C), 0))
  lower <- function(j, i) exp(-(D[cbind(j, leaf[i])] + r[i])^2 / (2 * sigma^2))
  plain <- celf(W, k); lowered <- celf(W, k, lower)
  data.frame(data = name, n = n, d = ncol(X), k = k, sigma_mult = mult,
             same_picks = identical(plain$picks, lowered$picks), keys_below_gain = lowered$below,
             reevaluations_plain = plain$evaluations, reevaluations_lowered = lowered$evaluations,
             share = lowered$evaluations / plain$evaluations,
             loss_terms = lowered$terms,
             loss_terms_per_pair_saved = lowered$terms / ((plain$evaluations - lowered$evaluations) * n))
}

cases <- list(
  list("medium", facility_data("medium", n = 3000), 50, 1),
  list("medium", facility_data("medium", n = 3000), 50, 0.25),
  list("heavy_skew", facility_data("heavy_skew", n = 3000), 50, 1),
  list("uniform", facility_data("uniform", n = 3000), 50, 1),
  list("quakes (long, lat)", as.matrix(quakes[, 1:2]), 50, 1),
  list("faithful", as.matrix(faithful), 20, 1))
rows <- do.call(rbind, lapply(cases, function(a) do.call(one_case, a)))
print(rows, digits = 3, row.names = FALSE)
write.csv(rows, out, row.names = FALSE)
