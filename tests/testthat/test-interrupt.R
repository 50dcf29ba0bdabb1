# Interrupts: a long solve in a child R process gets SIGINT (what Ctrl-C
# sends); the child must signal the facloc_interrupt condition, get back to
# its prompt and solve again.  The C side of the same path (every buffer
# freed) is checked without R by the fuzz harness under ASan and valgrind
# (inst/bench, `make sanitize valgrind`).

installed_lib <- function() {
  path <- find.package("facloc")
  if (!dir.exists(file.path(path, "Meta"))) return(NULL)   # load_all(), not installed
  dirname(path)
}

# Run `lines` in an interactive child R (so an uncaught interrupt returns to
# the prompt and the next line runs).  Each time its output shows one of
# `triggers` (regular expressions, in turn, each searched after the
# previous one was seen), wait `delay` seconds and send SIGINT.  Returns the output lines.
run_interrupted_child <- function(lines, triggers, timeout = 60, delay = 0) {
  dir <- tempfile("facloc-interrupt")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  script <- file.path(dir, "child.R")
  out <- file.path(dir, "out.txt")
  pidfile <- file.path(dir, "pid")
  writeLines(c(sprintf("library(facloc, lib.loc = %s)", deparse(installed_lib())),
               sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(pidfile)),
               lines, "cat('CHILD DONE\\n')", "quit('no')"), script)
  system2(file.path(R.home("bin"), "R"),
          c("--vanilla", "--interactive", "--no-echo", "--no-readline"),
          stdin = script, stdout = out, stderr = out, wait = FALSE)
  deadline <- Sys.time() + timeout
  read_out <- function() if (file.exists(out)) readLines(out, warn = FALSE) else character()
  while (!file.exists(pidfile) || length(readLines(pidfile, warn = FALSE)) == 0L) {
    if (Sys.time() > deadline) stop("the child R did not start")
    Sys.sleep(0.05)
  }
  pid <- as.integer(readLines(pidfile, warn = FALSE))
  on.exit(if (!any(grepl("CHILD DONE", read_out()))) tools::pskill(pid, tools::SIGKILL),
          add = TRUE, after = FALSE)
  seen <- 0L
  for (trigger in triggers) {
    repeat {
      text <- read_out()
      hit <- grep(trigger, text)
      hit <- hit[hit > seen]
      if (length(hit)) { seen <- max(hit); break }
      if (Sys.time() > deadline) stop("the child never printed ", trigger, "\n", paste(text, collapse = "\n"))
      Sys.sleep(0.05)
    }
    Sys.sleep(delay)
    tools::pskill(pid, tools::SIGINT)
    # later triggers are searched only in later output
    seen <- length(read_out())
  }
  repeat {
    text <- read_out()
    if (any(grepl("CHILD DONE", text))) return(text)
    if (Sys.time() > deadline) stop("the child did not finish\n", paste(text, collapse = "\n"))
    Sys.sleep(0.1)
  }
}

skip_without_child <- function() {
  skip_on_os("windows")
  skip_if(is.null(installed_lib()), "facloc is not installed (load_all)")
}

test_that("SIGINT stops a long facility_greedy, which signals facloc_interrupt and can solve again", {
  skip_without_child()
  text <- run_interrupted_child(c(
    "set.seed(1); X <- matrix(rnorm(4000), 2000)",
    # caught: the condition's classes reach the handler
    "res <- tryCatch({facility_greedy(X, 2000, mode = 'g', threads = 1, sigma = 0.3, verbose = TRUE); 'finished'}, interrupt = function(e) paste(class(e), collapse = ' '))",
    "cat('CAUGHT:', res, '\\n')",
    # uncaught: back at the prompt, the next line runs
    "cat('SECOND\\n'); fit <- facility_greedy(X, 2000, mode = 'dc', threads = 2, sigma = 0.3, verbose = TRUE)",
    "cat('PROMPT\\n')",
    "fit <- facility_greedy(X[1:60, ], 4, mode = 'c', threads = 2, sigma = 0.3)",
    "cat('AGAIN:', length(fit$selected), identical(fit$selected, facility_greedy(X[1:60, ], 4, mode = 'g', threads = 1, sigma = 0.3)$selected), '\\n')"
  ), triggers = c("facloc: round 5,", "facloc: round 5,"))
  expect_true(any(grepl("CAUGHT: facloc_interrupt interrupt condition", text)),
              info = paste(text, collapse = "\n"))
  expect_false(any(grepl("finished", text[grepl("CAUGHT", text)])))
  expect_true(any(grepl("^PROMPT", text)), info = paste(text, collapse = "\n"))
  expect_true(any(grepl("interrupted by the user", text)), info = paste(text, collapse = "\n"))
  expect_true(any(grepl("AGAIN: 4 TRUE", text)), info = paste(text, collapse = "\n"))
})

test_that("SIGINT stops a long dpmeans, which can run again", {
  skip_without_child()
  skip_if_not(exists("dpmeans", mode = "function"), "dpmeans not built yet")
  text <- run_interrupted_child(c(
    "set.seed(1); X <- matrix(rnorm(2e6), ncol = 4)",
    "cat('STARTING\\n')",
    "res <- tryCatch({dpmeans(X, lambda = 0.05, threads = 1, method = 'serial', max_iter = 1000); 'finished'}, interrupt = function(e) paste(class(e), collapse = ' '))",
    "cat('CAUGHT:', res, '\\n')",
    "fit <- dpmeans(X[1:200, ], lambda = 2, threads = 2)",
    "cat('AGAIN:', length(fit$cluster), '\\n')"
  ), triggers = "STARTING", delay = 1.5)
  expect_true(any(grepl("CAUGHT: facloc_interrupt interrupt condition", text)), info = paste(text, collapse = "\n"))
  expect_false(any(grepl("finished", text[grepl("CAUGHT", text)])))
  expect_true(any(grepl("AGAIN: 200", text)), info = paste(text, collapse = "\n"))
})
