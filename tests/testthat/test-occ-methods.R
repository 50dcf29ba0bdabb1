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
