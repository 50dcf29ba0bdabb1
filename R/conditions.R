# Every error the package raises is classed: c(<specific>, "facloc_error",
# "error", "condition"), argument errors carry the argument's name, and
# every condition carries the call the user made ("Error in
# facility_greedy(X, k = 500) : ..."), not that of an internal helper.

facloc_abort <- function(message, class, ..., call = user_call()) {
  stop(errorCondition(message, ..., class = c(class, "facloc_error"), call = call))
}

abort_argument <- function(arg, problem, call = user_call()) {
  facloc_abort(sprintf("`%s` %s", arg, problem), "facloc_error_argument",
               arg = arg, call = call)
}

# The call of the package function the user called: the innermost one on
# the stack that no function of the package called, directly or through
# base R (lapply(), do.call()).  So a call evaluated in an argument of
# another, facility_greedy(X, control = facility_control(eps = 2)), keeps
# its own: facility_control(eps = 2).  NULL when called from outside.
user_call <- function() {
  ns <- topenv(environment(user_call))
  frames <- seq_len(sys.nframe() - 1L)
  parents <- sys.parents()
  ours <- vapply(frames, function(i) identical(topenv(environment(sys.function(i))), ns), NA)
  called_by_us <- function(i) {
    p <- parents[i]
    while (p > 0L) {
      if (ours[p]) return(TRUE)
      p <- parents[p]
    }
    FALSE
  }
  for (i in rev(frames)) if (ours[i] && !called_by_us(i)) return(sys.call(i))
  NULL
}

# A user interrupt seen by the C core: it has freed its memory and returned;
# this signals an "interrupt" condition so tryCatch(interrupt = ) catches it.
signal_interrupt <- function() {
  cond <- structure(class = c("facloc_interrupt", "interrupt", "condition"),
                    list(message = "facloc: interrupted by the user", call = NULL))
  stop(cond)
}

# Turn a status from the C core into the matching condition.
check_status <- function(status, what = "the solver") {
  switch(as.character(status),
    "0" = invisible(TRUE),
    "1" = facloc_abort(sprintf("%s could not allocate its working memory; try a matrix-free mode (\"hpc\", \"nhpc\") or fewer threads", what),
                       "facloc_error_memory"),
    "2" = signal_interrupt(),
    facloc_abort(sprintf("%s failed with internal status %s", what, status),
                 "facloc_error_internal"))
}
