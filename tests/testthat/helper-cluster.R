# Whether a local PSOCK cluster can start here (the cluster tests skip if not).
can_start_cluster <- function() {
  cl <- tryCatch(parallel::makePSOCKcluster(1), error = function(e) NULL)
  if (is.null(cl)) return(FALSE)
  parallel::stopCluster(cl)
  TRUE
}

# Replace occ_worker on worker p by one that runs `action` at step `op`.
# The functions sent travel with the global environment, so the worker
# can unserialize them before it knows where facloc is installed.
sabotage <- function(cl, p, op, action) {
  patch <- function(lib, op, action) {
    .libPaths(c(lib, .libPaths()))
    ns <- asNamespace("facloc")
    original <- get("occ_worker", envir = ns)
    unlockBinding("occ_worker", ns)
    assign("occ_worker", function(key, step, args) {
      if (step == op) action()
      original(key, step, args)
    }, envir = ns)
    TRUE
  }
  environment(patch) <- environment(action) <- globalenv()
  lib <- dirname(getNamespaceInfo("facloc", "path"))
  parallel::clusterCall(cl[p], patch, lib, op, action)
}

# The run blocks a cluster's workers hold.
held_blocks <- function(cl) {
  count <- function() length(ls(get(".occ_store", envir = asNamespace("facloc"))))
  environment(count) <- globalenv()
  unlist(parallel::clusterCall(cl, count))
}

# An interrupt, as Ctrl-C signals it.
interrupt_condition <- function()
  structure(class = c("interrupt", "condition"), list(message = "", call = NULL))
