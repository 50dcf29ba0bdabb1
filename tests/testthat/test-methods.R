test_that("print, summary and plot describe the result", {
  case <- exact_cases()$gaussian
  fit <- facility_greedy(case$X, case$k, mode = "dc", sigma = case$sigma, threads = 1)
  expect_s3_class(fit, "facility_greedy")
  expect_output(print(fit), "f\\(S\\) =")
  s <- summary(fit)
  expect_s3_class(s, "summary.facility_greedy")
  expect_equal(nrow(s$picks), case$k)
  expect_equal(s$picks$objective[case$k], fit$objective, tolerance = 1e-9)
  expect_output(print(s), "certified within")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(fit), fit)
  expect_equal(dim(fit$facilities), c(case$k, ncol(case$X)))
})

test_that("facilities are the selected rows of X, names kept", {
  case <- exact_cases()$gaussian
  X <- case$X
  dimnames(X) <- list(pt = paste0("p", seq_len(nrow(X))), coord = paste0("x", seq_len(ncol(X))))
  for (threads in 1:2) {
    fit <- facility_greedy(X, case$k, mode = "nhpc", sigma = case$sigma, threads = threads)
    expect_identical(fit$facilities, X[fit$selected, , drop = FALSE])
  }
  big <- matrix(seq_len(2e6) / 7, ncol = 4)   # above the size the transpose runs in parallel
  for (threads in 1:2) expect_identical(facloc:::point_rows(big, threads), t(big))
})

test_that("verbose reports progress from the main thread", {
  case <- exact_cases()$line
  expect_output(facility_greedy(case$X, 3, mode = "c", sigma = case$sigma, verbose = TRUE),
                "round 3, 3 selected")
})
