# Ctrl-C (SIGINT) during an OCC run: the engine stops between epochs, frees
# its memory and the R side signals facloc_interrupt; the session goes on.
# (The child-process runner of helper-child.R, with one signal, or more
# when one lands outside the engine.)

# A signal that lands in the R code between two calls (about 1% of their
# time) is R's own interrupt, not the engine's: the child then asks for
# another, up to five.
test_that("an interrupted dpmeans() signals facloc_interrupt and R goes on", {
  skip_without_child()
  text <- run_interrupted_child(c(
    "X <- dp_data(50000, seed = 1)$X",
    "for (attempt in 1:5) {",
    "  cat('READY\\n')",
    "  r <- tryCatch(repeat dpmeans(X, 5, threads = 2, batch = 50),",
    "                facloc_interrupt = function(e) 'INTERRUPTED',",
    "                interrupt = function(e) 'R')",
    "  if (r == 'INTERRUPTED') break",
    "}",
    "cat('RESULT', r, '\\n')",
    "cat('AGAIN', nrow(dpmeans(X[1:500, ], 5, threads = 1)$centers) > 0, '\\n')"
  ), triggers = rep("^READY", 5), delay = 1)
  expect_match(grep("^RESULT", text, value = TRUE)[1], "INTERRUPTED")
  expect_match(grep("^AGAIN", text, value = TRUE)[1], "TRUE")
})
