# The R-to-C contract (src/r_util.h): the .Call glue reads the problem and
# control lists by name, and a field that is missing or renamed is an error
# naming it and its list, raised before anything is solved.

X_contract <- matrix(c(0, 1, 5, 6, 0, 1, 5, 6), 4)

contract_lists <- function() {
  list(problem = facloc:::facility_problem(X_contract, 1),
       control = facloc:::solver_control(facility_control(), "dc", 2L, 1L, FALSE))
}

rename_field <- function(list, from, to) {
  names(list)[names(list) == from] <- to
  list
}

test_that("the lists as R builds them solve", {
  l <- contract_lists()
  out <- .Call(facloc:::C_facloc_solve, l$problem, l$control)
  expect_identical(out$status, 0L)
  expect_length(out$selected, 2L)
})

test_that("a renamed control field is an error naming it", {
  l <- contract_lists()
  bad <- rename_field(l$control, "tau", "tua")
  expect_error(.Call(facloc:::C_facloc_solve, l$problem, bad), "control.*'tau'")
  expect_error(.Call(facloc:::C_facloc_solve_bytes, l$problem, bad), "control.*'tau'")
  expect_error(.Call(facloc:::C_facloc_bound, l$problem, 0L, bad), "control.*'tau'")
  bad <- l$control
  bad$mode <- NULL
  expect_error(.Call(facloc:::C_facloc_solve, l$problem, bad), "control.*'mode'")
})

test_that("a renamed problem field is an error naming it", {
  l <- contract_lists()
  for (field in c("sigma", "weight", "initial", "cost")) {
    bad <- rename_field(l$problem, field, paste0(field, "_"))
    expect_error(.Call(facloc:::C_facloc_solve, bad, l$control),
                 sprintf("problem.*'%s'", field))
    expect_error(.Call(facloc:::C_facloc_objective, bad, 0L, 1L),
                 sprintf("problem.*'%s'", field))
  }
})

test_that("a field of the wrong type or length is an error naming it", {
  l <- contract_lists()
  bad <- l$control
  bad["tau"] <- list(NULL)
  expect_error(.Call(facloc:::C_facloc_solve, l$problem, bad), "'tau'.*one number")
  bad <- l$problem
  bad$weight <- c("a", "b", "c", "d")
  expect_error(.Call(facloc:::C_facloc_solve, bad, l$control), "'weight'.*double")
  expect_error(.Call(facloc:::C_facloc_solve, unname(l$problem), l$control),
               "problem.*named list")
})

test_that("the OCC control list is checked the same way", {
  ok <- facloc:::occ_call("dpmeans", X_contract, 4, serial = TRUE, workers = 1L, batch = 4L,
                          order = NULL, shards = 1L, threads = 1L, max_iter = 5L,
                          what = "dpmeans()")
  expect_identical(ok$status, 0L)
  control <- list(lambda = 4, serial = 1L, workers = 1L, batch = 4L, order = NULL,
                  shards = 1L, threads = 1L, max_iter = 5L, u = NULL)
  kind <- facloc:::occ_kinds[["dpmeans"]]
  expect_identical(.Call(facloc:::C_facloc_occ, kind, X_contract, control)$status, 0L)
  bad <- rename_field(control, "max_iter", "maxiter")
  expect_error(.Call(facloc:::C_facloc_occ, kind, X_contract, bad), "control.*'max_iter'")
})
