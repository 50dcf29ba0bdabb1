# print(), summary(), plot(), predict() and serial_order() of the OCC fits
# (dpmeans, ofl, bpmeans), and the documentation of their components.

test_that("results print, summarise, plot and predict", {
  sim <- dp_data(300, seed = 31)
  fit <- dpmeans(sim$X, lambda = 5, threads = 2, batch = 10)
  expect_s3_class(fit, c("dpmeans", "occ_fit"))
  expect_output(print(fit), "DP-means \\(OCC, P = 2, batch = 10")
  s <- summary(fit)
  expect_equal(sum(s$passes$proposed), sum(fit$epochs$proposed))
  expect_equal(s$passes$objective, fit$objectives)
  expect_output(print(s), "Passes:")
  pdf(NULL); on.exit(dev.off())
  expect_identical(plot(fit), fit)
  expect_identical(predict(fit, sim$X), fit$cluster)   # converged: stable
  expect_identical(predict(fit, sim$X[1:3, , drop = FALSE]), fit$cluster[1:3])
  e <- fit$epochs
  expect_equal(e$rejected, e$proposed - e$accepted)
  expect_true(all(e$rejected <= fit$workers * fit$batch))
  expect_equal(sum(e$accepted), nrow(fit$proposals) - sum(e$rejected))

  o <- ofl(sim$X, lambda = 5, seed = 1, threads = 2)
  expect_output(print(o), "Online facility location")
  expect_identical(o$iterations, 1L)
  expect_identical(predict(o, sim$X[o$facilities, ]), seq_along(o$facilities))
  expect_identical(plot(o), o)

  b <- bpmeans(bp_data(200, seed = 2)$X, lambda = 4, threads = 2)
  expect_output(print(b), "BP-means")
  expect_output(print(summary(b)), "Sizes")
  Zn <- predict(b, b$features)
  expect_equal(dim(Zn), c(nrow(b$features), nrow(b$features)))
  expect_identical(plot(b), b)
})

test_that("serial_order of a serial run is its visiting order", {
  X <- dp_data(100, seed = 3)$X
  fit <- dpmeans(X, lambda = 5, method = "serial", seed = 2)
  ord <- serial_order(fit)
  again <- dpmeans(X, lambda = 5, method = "serial", order = ord)
  expect_identical(again$cluster, fit$cluster)
})

test_that("prediction assigns a point whose distances overflow to a cluster", {
  X <- dp_data(40, d = 2, seed = 1)$X
  far <- matrix(1e200, 2, 2)
  for (fit in list(dpmeans(X, 1, threads = 1), ofl(X, 1, seed = 1, threads = 1)))
    expect_identical(predict(fit, far), c(1L, 1L))
})

test_that("every component of an OCC result is documented", {
  man <- test_path("..", "..", "man")
  skip_if_not(dir.exists(man), "needs the source tree's man/")
  # names in the \value section: \item{a, b}{...} and \code{name}
  documented <- function(topic) {
    rd <- paste(readLines(file.path(man, paste0(topic, ".Rd"))), collapse = "\n")
    value <- regmatches(rd, regexpr("\\\\value\\{.*?\\n\\}", rd))
    items <- regmatches(value, gregexpr("\\\\item\\{[^}]*\\}", value))[[1]]
    codes <- regmatches(value, gregexpr("\\\\code\\{[A-Za-z_]+\\}", value))[[1]]
    c(trimws(unlist(strsplit(gsub("^\\\\item\\{|\\}$", "", items), ","))),
      gsub("^\\\\code\\{|\\}$", "", codes))
  }
  common <- documented("dpmeans")
  X <- dp_data(30, d = 2, seed = 1)$X
  cl_only <- c("setup_bytes", "collect_bytes")
  expect_identical(setdiff(c(names(dpmeans(X, 1, seed = 1, threads = 1)), cl_only),
                          common), character())
  expect_identical(setdiff(names(dpmeans(X, 1, method = "serial", order = 30:1)), common),
                  character())
  expect_identical(setdiff(names(ofl(X, 1, seed = 1, threads = 1)),
                          c(common, documented("ofl"))), character())
  expect_identical(setdiff(names(bpmeans(X, 1, seed = 1, threads = 1)),
                          c(common, documented("bpmeans"))), character())
})

test_that("predict() of an OCC fit requires newdata and rejects unknown arguments", {
  set.seed(7)
  X <- matrix(rnorm(60 * 2), ncol = 2)
  fit <- dpmeans(X, lambda = 2, threads = 1)
  expect_arg_error(predict(fit), "newdata", "newdata")
  expect_arg_error(predict(fit, X, foo = 1), "foo", "not an argument")
  expect_identical(predict(fit, X, threads = 1), predict(fit, X))
})
