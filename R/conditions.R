# Every error the package raises is classed: c(<specific>, "facloc_error",
# "error", "condition"), and argument errors carry the argument's name.

facloc_abort <- function(message, class, ..., call = NULL) {
  stop(errorCondition(message, ..., class = c(class, "facloc_error"), call = call))
}

abort_argument <- function(arg, problem, call = NULL) {
  facloc_abort(sprintf("`%s` %s", arg, problem), "facloc_error_argument",
               arg = arg, call = call)
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
