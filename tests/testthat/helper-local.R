# Settings changed for one expression, and facloc functions replaced for the
# rest of one test.

# Evaluate `expr` with options(facloc.memory_limit = limit).
with_memory_limit <- function(limit, expr) {
  old <- options(facloc.memory_limit = limit)
  on.exit(options(old))
  expr
}

# Evaluate `expr` under an elapsed-time limit of `seconds`, as
# R.utils::withTimeout() does: running longer is an error, not a hang.
with_time_limit <- function(seconds, expr) {
  on.exit(setTimeLimit())
  setTimeLimit(elapsed = seconds, transient = TRUE)
  expr
}

# Replace a facloc function in this session for the rest of the calling
# test (testthat 3.1.6 has no local_mocked_bindings()).
local_facloc_binding <- function(name, value, env = parent.frame()) {
  real <- get(name, envir = asNamespace("facloc"))
  assignInNamespace(name, value, "facloc")
  do.call(on.exit, list(substitute(assignInNamespace(n, f, "facloc"), list(n = name, f = real)),
                        add = TRUE), envir = env)
  invisible(real)
}
