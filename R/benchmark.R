# facility_benchmark(): runs every combination of presets, modes, thread
# counts and repetitions; scaling_table() and plot() turn the rows into the
# specification's speedup tables and figure.

bench_columns <- c(suite = "character", preset = "character", n = "integer",
                   d = "integer", k = "integer", mode = "character",
                   threads = "integer", rep = "integer", seconds = "double",
                   evaluations = "double", objective = "double",
                   quality = "double", bound_ratio = "double",
                   peak_bytes = "double", baseline_bytes = "double",
                   reference = "character",
                   error = "character")

#' Benchmark the solvers on the synthetic presets
#'
#' Runs \code{\link{facility_greedy}()} for every combination of preset,
#' mode, thread count and repetition and returns one row per run, the raw
#' material of \code{\link{scaling_table}()} and of the \code{plot()}
#' method. Each preset's data is generated once (with
#' \code{\link{facility_data}()}) and shared by all its runs.
#'
#' @section Quality:
#' \code{quality} is \eqn{f(S)} divided by the objective of exact greedy on
#' the same data, computed once per preset (untimed) with mode \code{"dc"}
#' or, when its \eqn{8 n^2}-byte similarity matrix exceeds
#' \code{\link{facloc_memory_limit}()}, with mode \code{"hc"} and
#' \code{facility_control(batch = 1, eps = 0, tau = 1)}, which is exact
#' greedy without the matrix. Column \code{reference} says \code{"exact"}
#' for those. Only when neither can run is the reference the best objective
#' found by the preset's runs, and \code{reference} says \code{"best"}.
#' The attribute \code{"reference"} gives each preset's reference objective
#' and how it was obtained.
#'
#' @section Interrupting:
#' Progress is reported with \code{\link{message}()}, one line per run
#' (\code{progress = FALSE} or \code{suppressMessages()} silences it). An
#' interrupt (Ctrl-C, Esc) stops the benchmark after freeing the running
#' solver and returns the rows already finished, with attribute
#' \code{"interrupted"} set to \code{TRUE}. With \code{file}, each row is also
#' appended to a CSV file as soon as its quality is known, so even a killed R
#' session keeps them; \code{\link{read_benchmark}()} reads the file back.
#'
#' A run that fails with a facloc error other than a bad argument (for
#' example \code{facloc_error_memory} for an exact mode on too many points)
#' gives a row with \code{NA} results and the message in \code{error};
#' the benchmark goes on.
#'
#' @param presets Names of presets or of whole suites (\code{"size"},
#'   \code{"clustering"}, \code{"skew"}, \code{"density"}); see
#'   \code{\link{facility_presets}()}.
#' @param modes Solver modes to run, see \code{\link{facility_greedy}()}.
#' @param threads Thread counts, whole numbers no larger than the number of
#'   processors available (a run at a capped count would be mislabelled).
#' @param k Number of facilities; \code{NULL} for each preset's default
#'   (100).
#' @param reps Repetitions of every combination.
#' @param n Number of points of every preset; \code{NULL} for each preset's
#'   own size. Small values make quick runs.
#' @param sigma Kernel width: the specification's 20, which the presets
#'   were tuned for (not the median heuristic of [facility_greedy()]).
#' @param control Settings of the relaxed modes, from
#'   \code{\link{facility_control}()}.
#' @param seed Seed of \code{\link{facility_data}()}.
#' @param file Optional path of a CSV file to append every finished row to
#'   (the header is written when the file is new).
#' @param progress Report one line per run.
#' @return A data frame of class \code{facility_benchmark}, one row per run,
#'   with columns \code{suite}, \code{preset}, \code{n}, \code{d}, \code{k},
#'   \code{mode}, \code{threads} (as used), \code{rep}, \code{seconds}
#'   (solver time, building the similarity matrix included),
#'   \code{evaluations} (marginal-gain evaluations), \code{objective},
#'   \code{quality}, \code{bound_ratio} (\code{objective / bound}, a
#'   certificate of near-optimality), \code{peak_bytes} (the process's peak
#'   resident memory during the run; \code{NA} where the platform cannot
#'   reset and read it), \code{baseline_bytes} (the resident memory just
#'   before the run, so \code{peak_bytes - baseline_bytes} is what the run
#'   added), \code{reference} and \code{error}. Attributes:
#'   \code{"reference"}, \code{"settings"} (sigma, control, seed, machine)
#'   and \code{"interrupted"}.
#' @seealso \code{\link{scaling_table}()}, \code{\link{plot.facility_benchmark}()},
#'   \code{\link{facility_presets}()}; \code{inst/bench/bench-suite.R} runs
#'   the full suite.
#' @export
#' @examples
#' bench <- facility_benchmark("small", modes = c("g", "dc"), threads = 1,
#'                             k = 10, reps = 2, n = 400)
#' bench
#' scaling_table(bench)
facility_benchmark <- function(presets = "small", modes = c("dc", "nhpc"),
                               threads = 1, k = NULL, reps = 3, n = NULL,
                               sigma = 20, control = facility_control(),
                               seed = 1, file = NULL, progress = TRUE) {
  presets <- check_presets(presets)
  modes <- check_modes(modes)
  threads <- check_thread_counts(threads)
  reps <- check_count(reps, "reps")
  if (!is.null(n)) n <- check_count(n, "n", min = 2)
  sizes <- if (is.null(n)) preset_table$n[match(presets, preset_table$name)] else n
  if (!is.null(k)) k <- check_count(k, "k", max = min(sizes))
  sigma <- check_positive(sigma, "sigma")
  check_control(control)
  seed <- check_count(seed, "seed", min = -.Machine$integer.max)
  if (!is.null(file)) check_bench_file(file)
  progress <- check_flag(progress, "progress")

  state <- new.env(parent = emptyenv())
  state$rows <- list()
  state$references <- list()
  state$pending <- list()
  state$done <- 0L
  total <- length(presets) * length(modes) * length(threads) * reps
  interrupted <- tryCatch({
    for (preset in presets)
      bench_preset(state, preset, modes, threads, k, reps, n, sigma, control,
                   seed, file, progress, total)
    FALSE
  }, interrupt = function(cnd) {
    flush_pending(state, file)
    TRUE
  })
  if (interrupted && progress) {
    done <- sum(vapply(state$rows, nrow, integer(1)))
    message(sprintf("facility_benchmark: interrupted; returning the %d finished run%s",
                    done, if (done == 1L) "" else "s"))
  }
  new_facility_benchmark(state, sigma, control, seed, interrupted)
}

# All runs of one preset.  Rows whose reference is known are kept (and
# written to `file`) at once; with a best-known reference they wait in
# state$pending until the preset ends (or is interrupted).
bench_preset <- function(state, preset, modes, threads, k, reps, n, sigma,
                         control, seed, file, progress, total) {
  p <- preset_row(preset)
  X <- facility_data(preset, n = n, seed = seed)
  k <- if (is.null(k)) p$k else k
  ref <- exact_reference(X, k, sigma, max(threads))
  if (!is.null(ref))
    state$references[[preset]] <- reference_row(preset, ref$objective, "exact", ref$method)
  for (mode in modes) for (t in threads) for (rep in seq_len(reps)) {
    row <- bench_run(X, p, k, mode, t, rep, sigma, control)
    state$done <- state$done + 1L
    if (!is.null(ref)) {
      row <- with_quality(row, ref$objective, "exact")
      keep_rows(state, row, file)
    } else {
      state$pending[[length(state$pending) + 1L]] <- row
    }
    if (progress) message(progress_line(row, state$done, total))
  }
  flush_pending(state, file)
}

# Keep the rows waiting for a best-known reference: the best objective
# among them becomes the reference of their preset.
flush_pending <- function(state, file) {
  if (!length(state$pending)) return(invisible())
  rows <- do.call(rbind, state$pending)
  state$pending <- list()
  found <- rows$objective[!is.na(rows$objective)]
  best <- if (length(found)) max(found) else NA_real_
  state$references[[rows$preset[1]]] <- reference_row(rows$preset[1], best, "best",
                                                      "best objective of the runs")
  keep_rows(state, with_quality(rows, best, "best"), file)
}

reference_row <- function(preset, objective, kind, method) {
  data.frame(preset = preset, objective = objective, reference = kind,
             method = method, stringsAsFactors = FALSE)
}

# Exact greedy's objective on X, untimed: "dc" when W fits in memory, else
# "hc" with exact settings; NULL when neither can run.
exact_reference <- function(X, k, sigma, threads) {
  attempts <- list(
    list(mode = "dc", control = facility_control(), method = "mode \"dc\""),
    list(mode = "hc", control = facility_control(batch = 1, eps = 0, tau = 1),
         method = "mode \"hc\" with batch = 1, eps = 0, tau = 1"))
  for (a in attempts) {
    fit <- tryCatch(facility_greedy(X, k, mode = a$mode, threads = threads,
                                    sigma = sigma, control = a$control),
                    facloc_error = function(e) NULL)
    if (!is.null(fit)) return(list(objective = fit$objective, method = a$method))
  }
  NULL
}

# One timed run as a one-row data frame (quality still NA).
bench_run <- function(X, p, k, mode, threads, rep, sigma, control) {
  run <- tryCatch(
    measure_run(facility_greedy(X, k, mode = mode, threads = threads,
                                sigma = sigma, control = control)),
    facloc_error = function(e) {
      if (inherits(e, "facloc_error_argument")) stop(e)
      e
    })
  failed <- inherits(run, "error")
  fit <- if (failed) NULL else run$value
  value <- function(x) if (failed) NA_real_ else as.double(x)
  data.frame(suite = p$suite, preset = p$name, n = nrow(X), d = ncol(X),
             k = as.integer(k), mode = mode,
             threads = if (failed) as.integer(threads) else as.integer(fit$threads),
             rep = as.integer(rep), seconds = value(fit$seconds),
             evaluations = value(fit$evaluations),
             objective = value(fit$objective), quality = NA_real_,
             bound_ratio = if (failed) NA_real_ else certificate(fit),
             peak_bytes = value(run$peak_bytes),
             baseline_bytes = value(run$baseline_bytes), reference = NA_character_,
             error = if (failed) conditionMessage(run) else NA_character_,
             stringsAsFactors = FALSE)
}

with_quality <- function(rows, reference, kind) {
  rows$quality <- rows$objective / reference
  rows$reference <- kind
  rows
}

keep_rows <- function(state, rows, file) {
  state$rows[[length(state$rows) + 1L]] <- rows
  if (!is.null(file))
    utils::write.table(rows, file, sep = ",", row.names = FALSE,
                       col.names = !file.exists(file), append = file.exists(file),
                       qmethod = "double")
}

progress_line <- function(row, done, total) {
  width <- nchar(total)
  result <- if (!is.na(row$error)) paste("failed:", row$error)
    else sprintf("%8.3f s  quality %s  f/bound %.4f", row$seconds,
                 if (is.na(row$quality)) "(pending)" else sprintf("%7.3f%%", 100 * row$quality),
                 row$bound_ratio)
  sprintf("[%*d/%d] %-14s n=%-6d %-4s threads=%-3d rep=%d %s", width, done, total,
          row$preset, row$n, row$mode, row$threads, row$rep, result)
}

new_facility_benchmark <- function(state, sigma, control, seed, interrupted) {
  rows <- if (length(state$rows)) do.call(rbind, state$rows) else empty_bench()
  rownames(rows) <- NULL
  refs <- if (length(state$references)) do.call(rbind, state$references) else NULL
  if (!is.null(refs)) rownames(refs) <- NULL
  structure(rows, class = c("facility_benchmark", "data.frame"),
            reference = refs, interrupted = interrupted,
            settings = list(sigma = sigma, control = control, seed = seed,
                            threads_available = thread_cap(),
                            r_version = R.version.string))
}

empty_bench <- function() {
  cols <- lapply(bench_columns, function(type) vector(type, 0L))
  as.data.frame(cols, stringsAsFactors = FALSE)
}

check_presets <- function(presets) {
  if (!is.character(presets) || length(presets) < 1L || anyNA(presets))
    abort_argument("presets", "must be a character vector of preset or suite names")
  unknown <- setdiff(presets, c(preset_table$name, preset_table$suite))
  if (length(unknown))
    abort_argument("presets", sprintf("contains unknown preset \"%s\"; presets are %s and suites %s",
                                      unknown[1], paste(preset_table$name, collapse = ", "),
                                      paste(unique(preset_table$suite), collapse = ", ")))
  expanded <- unlist(lapply(presets, function(p)
    if (p %in% preset_table$suite) preset_table$name[preset_table$suite == p] else p))
  unique(expanded)
}

check_modes <- function(modes) {
  if (!is.character(modes) || length(modes) < 1L || anyNA(modes))
    abort_argument("modes", "must be a character vector of solver modes")
  unknown <- setdiff(modes, facility_modes())
  if (length(unknown))
    abort_argument("modes", sprintf("contains unknown mode \"%s\"; modes are %s", unknown[1],
                                    paste0("\"", facility_modes(), "\"", collapse = ", ")))
  unique(modes)
}

check_thread_counts <- function(threads) {
  if (!is.numeric(threads) || length(threads) < 1L || anyNA(threads) ||
      any(!is.finite(threads)) || any(threads != round(threads)) || any(threads < 1))
    abort_argument("threads", "must be a vector of whole numbers, each at least 1")
  cap <- thread_cap()
  if (any(threads > cap))
    abort_argument("threads", sprintf("asks for %s threads but only %d processor%s available (OMP_THREAD_LIMIT and the CPU affinity count)",
                                      format(max(threads)), cap, if (cap == 1L) " is" else "s are"))
  sort(unique(as.integer(threads)))
}

# Rows are appended to `file`: an existing file must have the same columns.
check_bench_file <- function(file) {
  if (!is.character(file) || length(file) != 1L || is.na(file))
    abort_argument("file", "must be NULL or a single file path")
  if (file.exists(file)) {
    header <- names(utils::read.csv(file, nrows = 1L, check.names = FALSE))
    if (!identical(header, names(bench_columns)))
      abort_argument("file", sprintf("exists with other columns than a benchmark's (%s); name a new file",
                                     paste(names(bench_columns), collapse = ", ")))
  }
  invisible(file)
}

#' Read benchmark rows saved by facility_benchmark()
#'
#' Reads the CSV file written through the \code{file} argument of
#' \code{\link{facility_benchmark}()} (or by \code{inst/bench/bench-suite.R})
#' with the column types of a benchmark, so \code{\link{scaling_table}()}
#' and \code{plot()} work on it.
#'
#' @param file Path of the CSV file. It must have at least the columns
#'   \code{preset}, \code{mode}, \code{threads}, \code{seconds} and
#'   \code{quality}; other benchmark columns it lacks are read as \code{NA}.
#' @return A data frame of class \code{facility_benchmark}.
#' @export
#' @examples
#' path <- system.file("bench", "results", "suite.csv", package = "facloc")
#' if (nzchar(path)) scaling_table(read_benchmark(path))
read_benchmark <- function(file) {
  if (!is.character(file) || length(file) != 1L || is.na(file) || !file.exists(file))
    abort_argument("file", "must be the path of an existing file")
  header <- names(utils::read.csv(file, nrows = 1L, check.names = FALSE))
  known <- intersect(header, names(bench_columns))
  rows <- utils::read.csv(file, colClasses = bench_columns[known], stringsAsFactors = FALSE)
  check_bench(rows, "file")
  # files written by older versions may lack a column: add it as NA
  missing_na <- list(character = NA_character_, integer = NA_integer_, double = NA_real_)
  for (col in setdiff(names(bench_columns), header))
    rows[[col]] <- rep(missing_na[[bench_columns[[col]]]], nrow(rows))
  rows <- rows[c(names(bench_columns), setdiff(header, names(bench_columns)))]
  structure(rows, class = c("facility_benchmark", "data.frame"),
            interrupted = FALSE)
}

#' @export
print.facility_benchmark <- function(x, ...) {
  refs <- attr(x, "reference")
  cat(sprintf("facility_benchmark: %d run%s; presets %s; modes %s; threads %s\n",
              nrow(x), if (nrow(x) == 1L) "" else "s",
              paste(unique(x$preset), collapse = ", "),
              paste(unique(x$mode), collapse = ", "),
              paste(sort(unique(x$threads)), collapse = ", ")))
  if (!is.null(refs))
    cat(sprintf("quality relative to: %s\n",
                paste(sprintf("%s %s", refs$preset, refs$method), collapse = "; ")))
  if (isTRUE(attr(x, "interrupted"))) cat("(interrupted: not every combination ran)\n")
  failed <- sum(!is.na(x$error))
  if (failed) cat(sprintf("%d run%s failed (see column `error`)\n", failed,
                          if (failed == 1L) "" else "s"))
  shown <- as.data.frame(x)[, setdiff(names(x), c("suite", "error")), drop = FALSE]
  print(utils::head(shown, 20L), digits = 4, row.names = FALSE)
  if (nrow(x) > 20L) cat(sprintf("... and %d more rows\n", nrow(x) - 20L))
  invisible(x)
}

#' Speedup table of a benchmark
#'
#' Lays out a \code{\link{facility_benchmark}()} result as the tables of the
#' specification: one row per data set (and mode), one column per thread
#' count holding the speedup over the same preset's and mode's 1-thread
#' median time, and the quality at the highest thread count.
#'
#' Times are medians over repetitions; failed runs (\code{NA} seconds) are
#' left out. A preset and mode without a 1-thread run get \code{NA}
#' speedups, and so does a median time of 0 (runs shorter than the timer's
#' resolution, about a millisecond), as do all speedups over a 1-thread
#' median of 0: time such runs on more data.
#'
#' @param bench A \code{facility_benchmark} result, or any data frame with
#'   columns \code{preset}, \code{mode}, \code{threads}, \code{seconds} and
#'   \code{quality}.
#' @param value \code{"speedup"} (the default) or \code{"seconds"} for the
#'   median times themselves (the specification's table of absolute times).
#' @param modes Optional modes to keep.
#' @return A data frame with columns \code{suite}, \code{preset}, \code{n}
#'   (when \code{bench} has it), \code{mode}, one column per thread count
#'   named like \code{"2T"}, and \code{quality}: the median quality at the
#'   highest thread count of that row.
#' @export
#' @examples
#' bench <- data.frame(preset = "small", mode = "dc", threads = c(1, 1, 2, 2),
#'                     seconds = c(2, 2.2, 1.1, 1.2), quality = 1)
#' scaling_table(bench)
scaling_table <- function(bench, value = c("speedup", "seconds"), modes = NULL) {
  check_bench(bench)
  value <- check_choice(value, c("speedup", "seconds"), "value")
  if (!is.null(modes)) bench <- bench[bench$mode %in% check_modes(modes), , drop = FALSE]
  bench <- bench[!is.na(bench$seconds), , drop = FALSE]
  thread_counts <- sort(unique(as.integer(bench$threads)))
  groups <- unique(bench[, c("preset", "mode")])
  groups <- groups[order(preset_order(groups$preset), match(groups$mode, facility_modes())), ,
                   drop = FALSE]
  if (!nrow(groups)) abort_argument("bench", "has no successful runs")
  rows <- lapply(seq_len(nrow(groups)), function(i) {
    runs <- bench[bench$preset == groups$preset[i] & bench$mode == groups$mode[i], , drop = FALSE]
    scaling_row(runs, thread_counts, value)
  })
  cols <- as.data.frame(do.call(rbind, lapply(rows, `[[`, "times")))
  names(cols) <- paste0(thread_counts, "T")
  out <- data.frame(suite = preset_table$suite[match(groups$preset, preset_table$name)],
                    preset = groups$preset, stringsAsFactors = FALSE)
  if ("n" %in% names(bench))
    out$n <- bench$n[match(paste(groups$preset, groups$mode), paste(bench$preset, bench$mode))]
  out$mode <- groups$mode
  out <- cbind(out, cols, quality = vapply(rows, `[[`, double(1), "quality"))
  rownames(out) <- NULL
  attr(out, "value") <- value
  out
}

# Medians per thread count for one preset and mode, as speedups or seconds.
scaling_row <- function(runs, thread_counts, value) {
  med <- vapply(thread_counts, function(t) {
    s <- runs$seconds[runs$threads == t]
    if (length(s)) stats::median(s) else NA_real_
  }, double(1))
  base <- if (any(thread_counts == 1L)) med[thread_counts == 1L] else NA_real_
  # a run shorter than the timer's resolution records 0 s, and a speedup
  # from or to it (0/0, x/0, 0/x) measures nothing
  times <- if (value == "seconds") med
           else ifelse(base > 0 & med > 0, base / med, NA_real_)
  top <- max(runs$threads)
  list(times = times, quality = stats::median(runs$quality[runs$threads == top]))
}

preset_order <- function(preset) {
  order <- match(preset, preset_table$name)
  order[is.na(order)] <- nrow(preset_table) + seq_len(sum(is.na(order)))
  order
}

check_bench <- function(bench, arg = "bench") {
  needed <- c("preset", "mode", "threads", "seconds", "quality")
  if (!is.data.frame(bench))
    abort_argument(arg, "must be a data frame from facility_benchmark()")
  missing_cols <- setdiff(needed, names(bench))
  if (length(missing_cols))
    abort_argument(arg, sprintf("must have columns %s; missing %s",
                                paste(needed, collapse = ", "),
                                paste(missing_cols, collapse = ", ")))
  if (!is.numeric(bench$threads) || !is.numeric(bench$seconds))
    abort_argument(arg, "must have numeric columns `threads` and `seconds`")
  invisible(bench)
}

#' Plot the scaling of a benchmark
#'
#' Speedup over 1 thread against threads, one panel per mode and one line
#' per preset, with the ideal (linear) speedup as a dashed line and one
#' legend of the presets below the panels. Axes are logarithmic (base 2)
#' when the thread counts reach 8.
#'
#' @param x A \code{facility_benchmark} result.
#' @param modes Optional modes to draw (default: all in \code{x}).
#' @param ... Further graphical parameters passed to \code{\link[graphics]{plot}()};
#'   they override the method's own (\code{main}, \code{ylim}, ...).
#' @return \code{x}, invisibly.
#' @export
#' @examples
#' bench <- data.frame(preset = rep(c("small", "medium"), each = 4),
#'                     mode = "dc", threads = rep(c(1, 1, 2, 2), 2),
#'                     seconds = c(2, 2.2, 1.1, 1.2, 6, 6.2, 3.5, 3.4),
#'                     quality = 1)
#' class(bench) <- c("facility_benchmark", "data.frame")
#' plot(bench)
plot.facility_benchmark <- function(x, modes = NULL, ...) {
  tab <- scaling_table(x, modes = modes)
  thread_cols <- grep("T$", names(tab), value = TRUE)
  t <- as.integer(sub("T$", "", thread_cols))
  speedups <- unlist(tab[thread_cols])
  presets <- unique(tab$preset)
  colours <- grDevices::hcl.colors(max(2L, length(presets)), "Dark 3")
  panel_modes <- unique(tab$mode)
  # one legend of every preset below the panels, in the outer margin, not
  # inside the first panel where it hid lines and lost presets
  legend_cols <- min(4L, length(presets) + 1L)
  legend_rows <- ceiling((length(presets) + 1L) / legend_cols)
  old <- graphics::par(mfrow = grDevices::n2mfrow(length(panel_modes)),
                       mar = c(4, 4, 2.5, 1), oma = c(legend_rows + 0.5, 0, 0, 0))
  on.exit(graphics::par(old))
  log_axes <- if (max(t) >= 8L) "xy" else ""
  ylim <- range(1, max(t), speedups[is.finite(speedups) & speedups > 0])
  for (m in panel_modes) {
    rows <- tab[tab$mode == m, , drop = FALSE]
    plot_with_defaults(list(x = range(t), y = ylim, type = "n", log = log_axes, xaxt = "n",
                            xlab = "threads", ylab = "speedup",
                            main = sprintf("mode \"%s\"", m)), ...)
    graphics::axis(1, at = t)
    graphics::abline(0, 1, lty = 2, col = "grey40", untf = nzchar(log_axes))
    for (i in seq_len(nrow(rows))) {
      col <- colours[match(rows$preset[i], presets)]
      y <- unlist(rows[i, thread_cols])
      ok <- is.finite(y)   # join the thread counts that were measured
      graphics::lines(t[ok], y[ok], type = "b", pch = 20, col = col)
    }
  }
  # placed from the last panel at the device's bottom centre (xpd = NA)
  graphics::legend(graphics::grconvertX(0.5, "ndc"), graphics::grconvertY(0, "ndc"),
                   xjust = 0.5, yjust = 0, xpd = NA,
                   legend = c(presets, "ideal"), bty = "n", cex = 0.9,
                   ncol = legend_cols, col = c(colours[seq_along(presets)], "grey40"),
                   lty = c(rep(1, length(presets)), 2), pch = c(rep(20, length(presets)), NA))
  invisible(x)
}
