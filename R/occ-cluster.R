# OCC runs on the clusters of the parallel package.  The caller keeps the
# model (centers or features) and validates; each worker keeps its rows
# (its `batch` rows of every epoch, as a thread of the threaded engine
# proposes them) and their state in an environment of .occ_store under a
# per-run key, and runs the package's C steps on them (src/r_occ.c).  Every
# step is the threaded engine's code on the same rows in the same order, so
# a run with P workers has the bits of the threaded run with P threads.

.occ_store <- new.env(parent = emptyenv())
.occ_runs <- new.env(parent = emptyenv())

# The workers of `cl`, at most one per row of the n: more would hold no
# rows, and a cluster's workers are processes, refused before any starts.
cluster_size <- function(cl, n) {
  if (inherits(cl, "cluster")) {
    if (length(cl) < 1L) abort_argument("cl", "must have at least one worker")
    P <- length(cl)
  } else {
    if (!is.numeric(cl))
      abort_argument("cl", "must be a cluster from the parallel package or a number of local workers")
    P <- check_count(cl, "cl")
  }
  if (P > n) abort_argument("cl", sprintf("has %d workers for %d rows", P, n))
  P
}

# The parallel package's node-level transport (the functions behind
# clusterCall), so that a failure is attributed to its worker and the other
# workers' replies are still collected.  Every call carries a tag, which
# the worker returns with its reply.
send_call <- function(node, fun, args, tag) {
  get("sendCall", envir = asNamespace("parallel"))(node, fun, args, tag = tag)
}
recv_data <- function(node) get("recvData", envir = asNamespace("parallel"))(node)

# Send worker p one step.  A user interrupt cannot cut a message in two; any
# error while writing (a closed connection, a time limit) may have, so the
# connection is out of step from then on.  Returns NULL or that error.
node_send <- function(run, p, fun, args) {
  run$seq <- run$seq + 1
  tryCatch(suspendInterrupts(send_call(run$cl[[p]], fun, args, paste(run$key, run$seq))),
           error = function(e) {
             run$broken[p] <- TRUE
             e
           })
}

# Read worker p's next reply.  The wait while the worker computes reads
# nothing, so an interrupt or a time limit there leaves the connection in
# step (to be drained by cluster_close()), and it is serviced at once rather
# than when the reply arrives.  A user interrupt cannot cut a reply in two.
# An error while reading is the connection's (end of file) or a time limit
# checked between two chunks, or before the first one: reading again tells
# them apart, as only in the last case does a whole reply of this run
# follow.  Returns the reply, with the error that came first as `cut`, or
# the error when the connection is out of step.
node_recv <- function(run, p) {
  node <- run$cl[[p]]
  if (inherits(node$con, "sockconn"))
    while (!socketSelect(list(node$con), timeout = 1)) NULL
  r <- tryCatch(suspendInterrupts(recv_data(node)), error = function(e) e)
  if (!inherits(r, "error")) return(r)
  again <- tryCatch(suspendInterrupts(recv_data(node)), error = function(e) NULL)
  if (is.list(again) && is.character(again$tag) && startsWith(again$tag, paste0(run$key, " "))) {
    again$cut <- r
    return(again)
  }
  run$broken[p] <- TRUE
  r
}

# Runs on a worker: make the caller's library visible, then do one step.
# Its environment is the global one, so it travels without the package.
worker_stub <- function(libs, key, op, args) {
  .libPaths(unique(c(libs, .libPaths())))
  get("occ_worker", envir = asNamespace("facloc"))(key, op, args)
}
environment(worker_stub) <- globalenv()

# Which facloc build a session runs: its version and the digests of its
# installed R code and shared library.  It travels to the workers with
# worker_hello, so that a worker with any build (or none) can answer.
build_identity <- function() {
  path <- getNamespaceInfo("facloc", "path")
  files <- c(file.path(path, "R", "facloc.rdb"), getLoadedDLLs()[["facloc"]][["path"]])
  list(version = as.character(getNamespaceVersion("facloc")), path = path,
       md5 = unname(tools::md5sum(files)))
}
environment(build_identity) <- globalenv()

worker_hello <- function(libs, identity) {
  .libPaths(unique(c(libs, .libPaths())))
  loadNamespace("facloc")
  list(pid = Sys.getpid(), host = Sys.info()[["nodename"]], build = identity())
}
environment(worker_hello) <- globalenv()

occ_worker <- function(key, op, args) {
  tryCatch(occ_worker_step(key, op, args), error = function(e)
    structure(list(message = conditionMessage(e)), class = "facloc_worker_error"))
}

occ_worker_step <- function(key, op, a) {
  if (op == "init") {
    st <- new.env(parent = emptyenv())
    for (name in names(a)) assign(name, a[[name]], envir = st)
    st$threads <- resolve_threads(a$threads)     # this worker's processors
    m <- ncol(a$x)
    st$model <- matrix(0, nrow(a$x), 0L)
    bp <- a$kind == occ_kinds[["bpmeans"]]
    st$slots <- numeric(a$batch * (if (bp) 2 * nrow(a$x) + 1 else 1))   # per-row scratch of an epoch
    if (bp) {
      st$zcap <- 16L
      st$Z <- raw(16L * m)
      st$Zp <- raw(16L * m)
      st$chg <- raw(m)
    } else {
      st$z <- rep(-1L, m)
      st$zprev <- rep(-1L, m)
      st$cost <- numeric(m)
    }
    assign(key, st, envir = .occ_store)
    return(TRUE)
  }
  if (op == "greedy") return(greedi_part(a))
  if (op == "cleanup") {               # also the marker that ends a drain
    if (exists(key, envir = .occ_store, inherits = FALSE)) rm(list = key, envir = .occ_store)
    return(TRUE)
  }
  st <- get0(key, envir = .occ_store, inherits = FALSE)
  if (is.null(st)) stop("this worker holds no block for run ", key)
  if (!is.null(a$new)) st$model <- cbind(st$model, a$new)
  if (!is.null(a$apply)) worker_apply(st, a$apply)
  switch(op,
    epoch = {
      st$lo <- a$lo
      st$hi <- a$hi
      .Call(C_facloc_occ_wpropose, st, a$lo, a$hi)
    },
    partial = .Call(C_facloc_occ_wpartial, st),
    relabel = {
      st$model <- a$model
      .Call(C_facloc_occ_wrelabel, st, a$map, a$oldk)
    },
    collect = if (is.null(st$Z)) list(z = st$z + 1L, cost = st$cost)
              else matrix(as.integer(st$Z), st$zcap)[seq_len(a$k), , drop = FALSE])
}

# Validated outcomes of this worker's proposals in the last epoch, and its
# other rows' catch-up with the epoch's new centers; BP-means may first need
# room for more features in Z.
worker_apply <- function(st, ap) {
  need <- ncol(st$model)
  if (!is.null(st$Z) && need > st$zcap) {
    cap <- max(2L * st$zcap, need)
    widen <- function(Z) as.vector(rbind(matrix(Z, st$zcap), matrix(raw(1), cap - st$zcap, ncol(st$x))))
    st$Z <- widen(st$Z)
    st$Zp <- widen(st$Zp)
    st$zcap <- as.integer(cap)
  }
  .Call(C_facloc_occ_wapply, st, ap)
}

cluster_error <- function(run, p, message, broken) {
  info <- run$info[[p]]
  where <- if (is.list(info)) sprintf(" (host %s, pid %s)", info$host, info$pid) else ""
  state <- if (!broken) "the cluster is still usable"
           else if (run$own) "the workers facloc started have been stopped"
           else "its connection is gone or out of step: the cluster `cl` is broken, stop it with parallel::stopCluster()"
  facloc_abort(sprintf("worker %d%s failed: %s; %s", p, where, message, state),
               "facloc_error_cluster", worker = p, worker_message = message,
               broken = broken && !run$own)
}

# One round: fun(args[[p]]...) on worker p (a step of worker_stub unless
# `fun` is given), every reply collected in order.
occ_round <- function(run, op, args, fun = worker_stub,
                      call_args = function(a) list(run$libs, run$key, op, a)) {
  cl <- run$cl
  failure <- NULL
  fail <- function(p, message, broken)
    if (is.null(failure)) failure <<- list(p = p, message = message, broken = broken)
  sent <- logical(length(cl))
  for (p in seq_along(cl)) {
    e <- node_send(run, p, fun, call_args(args[[p]]))
    if (!is.null(e)) {                  # a worker that died between rounds
      fail(p, conditionMessage(e), TRUE)
      break
    }
    sent[p] <- TRUE
  }
  replies <- vector("list", length(cl))
  for (p in which(sent)) {
    r <- node_recv(run, p)
    if (inherits(r, "error")) {
      fail(p, conditionMessage(r), TRUE)
      next
    }
    if (!is.null(r$cut)) stop(r$cut)    # not the worker's: cluster_close() drains the rest
    r <- r$value
    if (inherits(r, "try-error"))
      r <- structure(list(message = as.character(r)), class = "facloc_worker_error")
    if (inherits(r, "facloc_worker_error")) fail(p, r$message, FALSE)
    replies[[p]] <- r
  }
  if (!is.null(failure)) cluster_error(run, failure$p, failure$message, failure$broken)
  list(replies = replies,
       sent = sum(vapply(args, function(a) as.double(length(serialize(a, NULL))), 0)),
       received = sum(vapply(replies, function(r) as.double(length(serialize(r, NULL))), 0)))
}

# Run work(run) on the workers of `cl` (a cluster, or a number of local
# workers to start), with the run's exit steps whichever way it ends.
cluster_session <- function(cl, workers, work) {
  run <- new.env(parent = emptyenv())
  run$own <- !inherits(cl, "cluster")
  run$cl <- if (run$own) start_local_cluster(workers) else cl
  run$broken <- logical(length(run$cl))
  run$libs <- dirname(getNamespaceInfo("facloc", "path"))
  .occ_runs$count <- (if (is.null(.occ_runs$count)) 0 else .occ_runs$count) + 1
  run$key <- sprintf("run%d_%d", Sys.getpid(), .occ_runs$count)
  run$seq <- 0
  on.exit(cluster_close(run))
  hello <- occ_round(run, "hello", vector("list", length(run$cl)), fun = worker_hello,
                     call_args = function(a) list(run$libs, build_identity))
  run$info <- hello$replies
  check_builds(run)
  ans <- work(run)
  run$done <- TRUE
  ans
}

# A worker with another facloc build would run other steps on its rows:
# refuse it before any data goes out.
check_builds <- function(run) {
  if (is.null(.occ_runs$build)) .occ_runs$build <- build_identity()
  mine <- .occ_runs$build
  for (p in seq_along(run$info)) {
    theirs <- run$info[[p]]$build
    if (!identical(theirs[c("version", "md5")], mine[c("version", "md5")]))
      cluster_error(run, p, sprintf("it runs another build of facloc (%s in %s) than this session (%s in %s)",
                                    theirs$version, theirs$path, mine$version, mine$path), FALSE)
  }
}

# The end of a run.  Workers facloc started are stopped.  On the caller's
# cluster every worker still in step gets a cleanup step, which drops the
# run's block, and its replies are read up to that step's own: whatever the
# run still owed (a step an interrupt or an error cut short) is read and
# dropped, so the next use of `cl` gets its own replies.
cluster_close <- function(run) {
  if (run$own) return(stop_own_cluster(run))
  live <- which(!run$broken)
  marker <- integer(length(run$cl))
  for (p in live) {
    if (is.null(node_send(run, p, worker_stub, list(run$libs, run$key, "cleanup", list()))))
      marker[p] <- run$seq
  }
  for (p in which(marker > 0)) {
    tag <- paste(run$key, marker[p])
    repeat {
      r <- node_recv(run, p)
      if (inherits(r, "error") || identical(r$tag, tag)) break
    }
  }
}

# Stop every node that still answers and close its connection, so a dead
# worker does not keep the others running.  A run cut short can leave a
# worker busy with a step, which reads the stop only when the step ends,
# minutes away maybe: then the local workers (their pids known from the
# hello round) are killed.
stop_own_cluster <- function(run) {
  cl <- run$cl
  for (p in seq_along(cl)) {
    tryCatch(parallel::stopCluster(cl[p]), error = function(e) NULL)
    con <- cl[[p]]$con
    if (inherits(con, "connection")) try(close(con), silent = TRUE)
  }
  if (isTRUE(run$done)) return(invisible())
  here <- Sys.info()[["nodename"]]
  pids <- unlist(lapply(run$info, function(i) if (is.list(i) && identical(i$host, here)) i$pid))
  if (length(pids)) tools::pskill(pids)
  invisible()
}

start_local_cluster <- function(workers) {
  tryCatch(parallel::makePSOCKcluster(workers),
           error = function(e) facloc_abort(sprintf("could not start %d local workers: %s",
                                                    workers, conditionMessage(e)),
                                            "facloc_error_cluster", worker = NA_integer_))
}

# The distributed OCC run of a validated setting `s` (see occ_settings()).
occ_distributed <- function(kind, s, cl, u = NULL) {
  cluster_session(cl, s$workers, function(run) {
    P <- length(run$cl)
    perm <- if (!is.null(s$seed) && kind != "ofl") with_seed(s$seed, sample.int(s$n))
    X <- if (is.null(perm)) s$X else s$X[perm, , drop = FALSE]
    rows <- worker_rows(s$n, P, s$batch)
    started <- proc.time()[["elapsed"]]
    init <- lapply(seq_len(P), function(p) {
      list(kind = occ_kinds[[kind]], x = t(X[rows[[p]], , drop = FALSE]), lambda = s$lambda,
           threads = s$threads, batch = s$batch, u = if (!is.null(u)) u[rows[[p]]])
    })
    setup <- occ_round(run, "init", init)
    ans <- occ_passes(kind, s, run, rows, u)
    collect <- occ_round(run, "collect", rep(list(list(k = ncol(ans$model))), P))
    ans$seconds <- proc.time()[["elapsed"]] - started
    ans$setup_bytes <- setup$sent
    ans$collect_bytes <- collect$received
    occ_cluster_result(kind, s, ans, collect$replies, rows, perm)
  })
}

# The rows (1-based, ascending) each of P workers holds: epoch t has the
# P b rows from t P b + 1, worker p the b of them from t P b + (p - 1) b + 1.
worker_rows <- function(n, P, batch) {
  unname(split(seq_len(n), factor(((seq_len(n) - 1L) %/% batch) %% P + 1L, levels = seq_len(P))))
}

# The epochs and end-of-pass steps; returns the model and the trace.
occ_passes <- function(kind, s, run, rows, u) {
  P <- length(run$cl)
  m <- lengths(rows)
  K <- function() ncol(model)
  model <- matrix(0, s$d, 0L)
  synced <- 0L
  pending <- vector("list", P)
  epochs <- ceiling(s$n / (P * s$batch))
  trace <- list()
  props <- list()
  opened <- integer()
  objectives <- numeric()
  converged <- FALSE
  message_for <- function(p, extra) {
    c(list(new = if (K() > synced) model[, (synced + 1L):K(), drop = FALSE],
           apply = pending[[p]]), extra)
  }
  for (pass in seq_len(s$max_iter)) {
    for (t in seq_len(epochs) - 1L) {
      t0 <- proc.time()[["elapsed"]]
      args <- lapply(seq_len(P), function(p)
        message_for(p, list(lo = as.integer(min(t * s$batch, m[p])),
                            hi = as.integer(min((t + 1) * s$batch, m[p])),
                            pass = pass)))
      r <- occ_round(run, "epoch", args)
      synced <- K()
      pending <- vector("list", P)
      v <- validate_round(kind, r$replies, rows, model, s$lambda, u)
      if (!is.null(v)) {
        model <- v$model
        pending <- v$pending
        opened <- c(opened, v$opened)
        props[[length(props) + 1L]] <- data.frame(iteration = pass, point = v$rows)
      }
      trace[[length(trace) + 1L]] <- data.frame(
        iteration = pass, proposed = v$proposed %||% 0L, accepted = v$accepted %||% 0L,
        seconds = proc.time()[["elapsed"]] - t0, bytes_sent = r$sent,
        bytes_received = r$received)
    }
    t0 <- proc.time()[["elapsed"]]
    part <- occ_round(run, "partial", lapply(seq_len(P), function(p) message_for(p, list(pass = pass))))
    synced <- K()
    pending <- vector("list", P)
    partial <- Reduce(`+`, lapply(part$replies, `[[`, "partial"))
    changed <- sum(vapply(part$replies, `[[`, 0L, "changed"))
    bytes <- c(part$sent, part$received)
    if (kind == "ofl") {
      objective <- partial + s$lambda^2 * K()
      changed <- 0L
    } else {
      up <- .Call(C_facloc_occ_cupdate, occ_kinds[[kind]], partial, K(), s$d)
      oldk <- K()
      model <- up$model
      rel <- occ_round(run, "relabel", rep(list(list(model = model, map = up$map, oldk = oldk)), P))
      synced <- K()
      objective <- Reduce(`+`, rel$replies) + s$lambda^2 * K()
      bytes <- bytes + c(rel$sent, rel$received)
    }
    last <- length(trace)
    trace[[last]]$seconds <- trace[[last]]$seconds + proc.time()[["elapsed"]] - t0
    trace[[last]]$bytes_sent <- trace[[last]]$bytes_sent + bytes[1]
    trace[[last]]$bytes_received <- trace[[last]]$bytes_received + bytes[2]
    objectives <- c(objectives, objective)
    if (changed == 0L) {
      converged <- TRUE
      break
    }
  }
  list(model = model, trace = do.call(rbind, trace), objectives = objectives,
       converged = converged, opened = opened,
       proposals = if (length(props)) do.call(rbind, props)
                   else data.frame(iteration = integer(), point = integer()))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Validate one epoch's proposals in worker order, which is row order; split
# the outcomes back, with each worker's count of acceptances ahead of it so
# that its other rows catch up with the centers accepted before them.
validate_round <- function(kind, replies, worker_rows, model, lambda, u) {
  np <- vapply(replies, function(r) length(r$rows), 0L)
  if (sum(np) == 0L) return(NULL)
  worker <- rep(seq_along(replies), np)
  rows <- unlist(lapply(replies, `[[`, "rows"))
  global <- unlist(lapply(seq_along(replies), function(p) worker_rows[[p]][replies[[p]]$rows + 1L]))
  props <- list(payload = do.call(cbind, lapply(replies, `[[`, "payload")),
                z = unlist(lapply(replies, `[[`, "z")), sd = unlist(lapply(replies, `[[`, "sd")),
                u = if (!is.null(u)) u[global])
  v <- .Call(C_facloc_occ_cvalidate, occ_kinds[[kind]], props, model, lambda)
  occ_check_status(v$status, "validation")
  ahead <- cumsum(c(0L, vapply(seq_along(replies), function(p) sum(v$accepted[worker == p]), 0L)))
  pending <- lapply(seq_along(replies), function(p) {
    mine <- worker == p
    if (!any(mine) && ahead[p] == 0L) return(NULL)
    list(rows = rows[mine], accepted = v$accepted[mine], z = v$z[mine], sd = v$sd[mine],
         kfix = ncol(model), before = ahead[p],
         bits = if (!is.null(v$bits)) v$bits[mine, , drop = FALSE])
  })
  list(model = v$model, pending = pending, rows = global,
       opened = global[v$accepted == 1L], proposed = length(rows),
       accepted = sum(v$accepted))
}

occ_cluster_result <- function(kind, s, ans, collected, rows, perm) {
  by_row <- function(parts) {          # per-worker vectors back in row order
    out <- vector(typeof(parts[[1]]), s$n)
    for (p in seq_along(parts)) out[rows[[p]]] <- parts[[p]]
    out
  }
  tr <- ans$trace
  out <- list(trace = list(
    iterations = length(ans$objectives), converged = ans$converged,
    objective = ans$objectives, epoch_iteration = tr$iteration,
    proposed = tr$proposed, accepted = tr$accepted, seconds = tr$seconds,
    proposals = ans$proposals$point, proposal_pass = ans$proposals$iteration),
    seconds = ans$seconds)
  if (kind == "bpmeans") {
    Z <- t(do.call(cbind, collected))
    Z[unlist(rows), ] <- Z
    out$Z <- Z
    out$features <- t(ans$model)
  } else {
    out$cluster <- by_row(lapply(collected, `[[`, "z"))
    out$centers <- t(ans$model)
  }
  if (kind == "ofl") {
    out$facility <- ans$opened
    out$cost <- by_row(lapply(collected, `[[`, "cost"))
  }
  fit <- occ_result(kind, out, s, perm)
  fit$epochs$bytes_sent <- tr$bytes_sent
  fit$epochs$bytes_received <- tr$bytes_received
  fit$setup_bytes <- ans$setup_bytes
  fit$collect_bytes <- ans$collect_bytes
  fit
}
