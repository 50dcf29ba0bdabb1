# Data for inst/bench/quality-sweep.R: the numeric data sets shipped with
# R's base and recommended packages, and families of points whose geometry
# is unlike the Gaussian blobs of facility_presets().

# Packages whose data sets the sweep takes: base R's datasets and the
# recommended packages (those of them that are installed).
sweep_packages <- function() {
  wanted <- c("datasets", "MASS", "cluster", "boot", "lattice", "nlme", "survival",
              "rpart", "mgcv", "KernSmooth", "class", "spatial", "foreign", "Matrix",
              "nnet", "codetools")
  have <- rownames(utils::installed.packages(priority = c("base", "recommended")))
  intersect(wanted, have)
}

# The numeric matrix of one data object, or a string saying why not: its
# numeric columns (integer or double; factors, logicals, dates, times and
# other classes dropped), complete and finite rows only, constant columns
# dropped, at least min_n rows, and at most max_n rows (a sample drawn with
# set.seed(1), kept in the original order).  Columns are not standardised.
numeric_rows <- function(obj, min_n = 100, max_n = 5000) {
  if (is.matrix(obj) && !is.data.frame(obj)) {
    if (!is.numeric(obj)) return("matrix not numeric")
    obj <- as.data.frame(unclass(obj))   # drops ts attributes
  }
  if (!is.data.frame(obj)) return(paste("class", class(obj)[1]))
  obj <- as.data.frame(obj)
  num <- vapply(obj, function(col) is.numeric(col) && is.null(dim(col)) &&
                  (is.null(oldClass(col)) || identical(oldClass(col), "AsIs") ||
                   inherits(col, c("integer", "numeric"))), TRUE)
  if (!any(num)) return("no numeric column")
  X <- vapply(obj[num], as.double, numeric(nrow(obj)))
  if (!is.matrix(X)) X <- matrix(X, nrow = nrow(obj), dimnames = list(NULL, names(obj)[num]))
  X <- X[rowSums(!is.finite(X)) == 0, , drop = FALSE]
  if (nrow(X) < 2) return("fewer than 2 complete rows")
  varies <- apply(X, 2, function(v) any(v != v[1]))
  X <- X[, varies, drop = FALSE]
  if (!ncol(X)) return("no non-constant numeric column")
  if (nrow(X) < min_n) return(sprintf("%d complete rows", nrow(X)))
  sampled <- FALSE
  if (nrow(X) > max_n) {
    set.seed(1)
    X <- X[sort(sample.int(nrow(X), max_n)), , drop = FALSE]
    sampled <- TRUE
  }
  dimnames(X) <- list(NULL, colnames(X))
  attr(X, "sampled") <- sampled
  X
}

# Every data object of the packages as a list of matrices, named
# "package::object"; identical matrices are kept once (under their first
# name).  Attribute "skipped": a data frame of what was left out and why.
r_data_sets <- function(packages = sweep_packages(), min_n = 100, max_n = 5000,
                        verbose = TRUE) {
  out <- list()
  skipped <- list()
  for (pkg in packages) {
    items <- utils::data(package = pkg)$results
    if (!nrow(items)) next
    for (item in items[, "Item"]) {
      object <- sub(" .*$", "", item)                      # "beaver1 (beavers)"
      file <- if (grepl("\\(", item)) sub("^.*\\((.*)\\)$", "\\1", item) else object
      name <- paste0(pkg, "::", object)
      env <- new.env()
      got <- tryCatch({
        suppressWarnings(suppressMessages(
          utils::data(list = file, package = pkg, envir = env)))
        if (exists(object, envir = env, inherits = FALSE)) get(object, envir = env)
        else "object not found after data()"
      }, error = function(e) paste("error:", conditionMessage(e)))
      X <- if (is.character(got) && length(got) == 1 && grepl("^error:|^object not", got)) got
           else tryCatch(numeric_rows(got, min_n, max_n),
                         error = function(e) paste("error:", conditionMessage(e)))
      if (is.character(X)) {
        skipped[[length(skipped) + 1]] <- data.frame(data = name, why = X)
        next
      }
      dup <- Find(function(Y) identical(dim(Y), dim(X)) &&
                    isTRUE(all.equal(unname(Y), unname(X), tolerance = 0,
                                     check.attributes = FALSE)), out)
      if (!is.null(dup)) {
        skipped[[length(skipped) + 1]] <- data.frame(data = name, why = "duplicate")
        next
      }
      out[[name]] <- X
    }
  }
  structure(out, skipped = do.call(rbind, skipped))
}

# Own families, each drawn with a fixed seed (set.seed() under the default
# generators), n points:
#   rings8:     three noisy concentric circles and a spiral in a random 3-d
#               subspace of R^8, plus noise sd 0.02 in all 8 coordinates;
#   cauchy8:    multivariate t with 1.5 degrees of freedom in R^8
#               (heavy tails: most points in a core, a few very far out);
#   t1_4:       multivariate Cauchy (t, 1 df) in R^4;
#   aniso10:    Gaussian mixture of 10 clusters in R^10 whose coordinate j
#               is scaled by 1000^((j - 1) / 9): axis scales 1 to 1000;
#   dups_exact: 40 distinct points of R^6 each repeated about n / 40 times;
#   dups_jit:   the same with jitter of sd 1e-6 relative to the spread;
#   square2:    uniform in the unit square (low dimension, no structure);
#   grid2:      n points of the smallest square integer grid that holds them
#               (55 x 55 at n = 3000; exact near-ties
#               everywhere: greedy's path is decided by its tie-break).
own_family_names <- function() c("rings8", "cauchy8", "t1_4", "aniso10", "dups_exact", "dups_jit",
                                 "square2", "grid2")

own_family <- function(name, n = 3000, seed = 1) {
  set.seed(seed)
  switch(name,
    rings8 = {
      m <- n %/% 4
      part <- c(rep(1:3, each = m), rep(4, n - 3 * m))
      t <- stats::runif(n, 0, 2 * pi)
      r <- c(1, 2, 3)[pmin(part, 3)]
      P <- cbind(r * cos(t), r * sin(t), 0)
      spiral <- part == 4
      u <- stats::runif(sum(spiral), 0, 4 * pi)
      P[spiral, ] <- cbind(0.3 * u * cos(u), 0.3 * u * sin(u), 0.3 * u)
      Q <- qr.Q(qr(matrix(stats::rnorm(8 * 3), 8)))
      P %*% t(Q) + matrix(stats::rnorm(n * 8, sd = 0.02), n)
    },
    cauchy8 = matrix(stats::rnorm(n * 8), n) / sqrt(stats::rchisq(n, 1.5) / 1.5),
    t1_4 = matrix(stats::rnorm(n * 4), n) / sqrt(stats::rchisq(n, 1)),
    aniso10 = {
      centers <- matrix(stats::rnorm(10 * 10, sd = 3), 10)
      X <- centers[sample.int(10, n, replace = TRUE), ] + matrix(stats::rnorm(n * 10), n)
      sweep(X, 2, 1000^((0:9) / 9), `*`)
    },
    dups_exact = {
      P <- matrix(stats::rnorm(40 * 6, sd = 5), 40)
      P[rep_len(1:40, n)[sample.int(n)], ]
    },
    dups_jit = {
      P <- matrix(stats::rnorm(40 * 6, sd = 5), 40)
      P[rep_len(1:40, n)[sample.int(n)], ] + matrix(stats::rnorm(n * 6, sd = 5e-6), n)
    },
    square2 = matrix(stats::runif(n * 2), n),
    grid2 = {
      side <- ceiling(sqrt(n))
      as.matrix(expand.grid(seq_len(side), seq_len(side)))[sample.int(side^2, n), ] + 0
    },
    stop("unknown family ", name))
}

unit_rows <- function(X) X / sqrt(rowSums(X^2))

# Embedding-like points (inst/bench/embeddings.R): 50 centres on the unit
# sphere, cluster sizes drawn from a Dirichlet(1) (uneven, as topics are),
# each point its centre plus isotropic noise of the same norm, normalised
# to unit length.
embedding_points <- function(n, d, centres = 50) {
  set.seed(57 + d)
  C <- unit_rows(matrix(rnorm(centres * d), centres))
  share <- rexp(centres)
  id <- sample(centres, n, replace = TRUE, prob = share / sum(share))
  unit_rows(C[id, ] + unit_rows(matrix(rnorm(n * d), n)))
}
