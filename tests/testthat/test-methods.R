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

test_that("verbose reports progress from the main thread", {
  case <- exact_cases()$line
  expect_output(facility_greedy(case$X, 3, mode = "c", sigma = case$sigma, verbose = TRUE),
                "round 3, 3 selected")
})
