# Ctrl-C (SIGINT) during an OCC run: the engine stops between epochs, frees
# its memory and the R side signals facloc_interrupt; the session goes on.
# (The child-process pattern of test-interrupt.R, reduced to one signal.)

test_that("an interrupted dpmeans() signals facloc_interrupt and R goes on", {
  skip_on_os("windows")
  lib <- dirname(find.package("facloc"))
  skip_if_not(dir.exists(file.path(lib, "facloc", "Meta")), "facloc is not installed")
  dir <- tempfile("occ-interrupt")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  out <- file.path(dir, "out.txt")
  writeLines(c(
    sprintf("library(facloc, lib.loc = %s)", deparse(lib)),
    "X <- dp_data(50000, seed = 1)$X",
    "cat('READY', Sys.getpid(), '\\n')",
    "r <- tryCatch(repeat dpmeans(X, 5, threads = 2, batch = 50),",
    "              facloc_interrupt = function(e) 'INTERRUPTED')",
    "cat('RESULT', r, '\\n')",
    "cat('AGAIN', nrow(dpmeans(X[1:500, ], 5, threads = 1)$centers) > 0, '\\n')",
    "quit('no')"), file.path(dir, "child.R"))
  system2(file.path(R.home("bin"), "R"),
          c("--vanilla", "--interactive", "--no-echo", "--no-readline"),
          stdin = file.path(dir, "child.R"), stdout = out, stderr = out, wait = FALSE)
  text <- function() if (file.exists(out)) readLines(out, warn = FALSE) else character()
  wait_for <- function(pattern) {
    deadline <- Sys.time() + 60
    while (!any(grepl(pattern, text()))) {
      if (Sys.time() > deadline) stop("no ", pattern, " from the child:\n", paste(text(), collapse = "\n"))
      Sys.sleep(0.1)
    }
    grep(pattern, text(), value = TRUE)[1]
  }
  pid <- as.integer(strsplit(wait_for("^READY"), " +")[[1]][2])
  Sys.sleep(1)
  tools::pskill(pid, tools::SIGINT)
  expect_match(wait_for("^RESULT"), "INTERRUPTED")
  expect_match(wait_for("^AGAIN"), "TRUE")
})
