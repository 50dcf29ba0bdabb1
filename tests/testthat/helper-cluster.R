# Whether a local PSOCK cluster can start here (the cluster tests skip if not).
can_start_cluster <- function() {
  cl <- tryCatch(parallel::makePSOCKcluster(1), error = function(e) NULL)
  if (is.null(cl)) return(FALSE)
  parallel::stopCluster(cl)
  TRUE
}
