# Child R processes: for the interrupt tests (test-interrupt.R,
# test-occ-interrupt.R), run a script, send SIGINT (what Ctrl-C sends) when
# its output shows a trigger, and return what it printed; for code that
# might crash R, run it where a crash fails the test alone.

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
      # the child may finish before later triggers: they are not needed
      if (any(grepl("CHILD DONE", text))) return(text)
      hit <- grep(trigger, text)
      hit <- hit[hit > seen]
      if (length(hit)) { seen <- max(hit); break }
      if (Sys.time() > deadline) stop("the child never printed ", trigger, "\n", paste(text, collapse = "\n"))
      Sys.sleep(0.05)
    }
    Sys.sleep(delay)
    # later triggers are searched only in output after this point; counted
    # before the signal, since the child may answer it before a read after
    seen <- length(read_out())
    tools::pskill(pid, tools::SIGINT)
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

# Run `lines` in a child Rscript with the installed package: a crash there
# fails the test instead of taking the test run down.  Returns the output
# and the exit status.
run_child <- function(lines) {
  lib <- installed_lib()
  if (is.null(lib)) skip("needs the installed package")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c(sprintf("library(facloc, lib.loc = %s)", deparse(lib)), lines), script)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"),
                                  c("--vanilla", script), stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  list(output = out, status = if (is.null(status)) 0L else status)
}
