library(testthat)
library(facloc)

test_check("facloc")
