# Attach facloc from FACLOC_LIB (a private library, such as one made by
# tools/dev-install.sh) when set, else from the default libraries.
library_facloc <- function() {
  lib <- Sys.getenv("FACLOC_LIB")
  suppressPackageStartupMessages(
    if (nzchar(lib)) library(facloc, lib.loc = lib) else library(facloc))
}

# run(threads) for every thread count in thread_set, `reps` rounds that
# each take the thread counts in turn.  The load of a shared machine drifts
# by 10 to 20% within minutes; interleaving gives every thread count the
# same conditions, where consecutive blocks of runs gave speedups that
# moved by as much.  Returns, per thread count, the list of its runs.
interleaved_runs <- function(thread_set, reps, run) {
  runs <- lapply(thread_set, function(threads) vector("list", reps))
  for (r in seq_len(reps))
    for (i in seq_along(thread_set)) runs[[i]][[r]] <- run(thread_set[i])
  runs
}

# The fastest of the runs recorded in an all_seconds field ("0.712 0.690 ..."):
# on a shared machine other tenants only ever add time, so beside the
# median the fastest run shows what the code does when left alone.
fastest_run <- function(all_seconds) {
  vapply(strsplit(as.character(all_seconds), " "), function(v) min(as.numeric(v)), 0)
}

# Describe the machine a benchmark ran on: written beside every saved result.
describe_machine <- function() {
  cpu <- tryCatch(system("lscpu", intern = TRUE), error = function(e) character())
  field <- function(name) {
    hit <- grep(paste0("^", name, ":"), cpu, value = TRUE)
    if (length(hit)) trimws(sub("^[^:]+:", "", hit[1])) else NA_character_
  }
  cc <- tryCatch(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CC"),
                         stdout = TRUE), error = function(e) NA_character_)
  cflags <- tryCatch(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CFLAGS"),
                             stdout = TRUE), error = function(e) NA_character_)
  version <- tryCatch(system(paste(cc[1], "--version"), intern = TRUE)[1],
                      error = function(e) NA_character_)
  c(date = format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"),
    cpu = field("Model name"),
    cores_available = as.character(facloc:::available_cores()),
    memory = sprintf("%.1f GiB", as.double(sub("^MemTotal:\\s*([0-9]+).*$", "\\1",
      grep("^MemTotal:", readLines("/proc/meminfo"), value = TRUE))) / 2^20),
    r = R.version.string, compiler = version, cflags = cflags[1],
    openmp = as.character(.Call(facloc:::C_facloc_has_openmp)),
    pass_by_cpu = pass_by_cpu())
}

# Seconds of one exhaustive pass over a fixed set of 2000 points on each
# CPU alone (best of 3, in a child process pinned to it): the vCPUs of a
# cloud VM need not be equal.  On the 2-vCPU EPYC VM of 2026-12-01 one of
# the two took 1.6 to 1.75 times as long as the other, and which one moved
# within the hour; two threads there gain at most 1 + 1 / 1.75 over one on
# the fast CPU.  NA where processes cannot be pinned.
pass_by_cpu <- function() {
  if (.Platform$OS.type != "unix") return(NA_character_)
  X <- facility_data("small", n = 2000)
  cpus <- seq_len(parallel::detectCores())
  seconds <- vapply(cpus, function(cpu) {
    job <- parallel::mcparallel({
      parallel::mcaffinity(cpu)
      min(replicate(3, as.numeric(facility_pass_time(X, threads = 1))))
    })
    out <- parallel::mccollect(job)[[1]]
    if (is.numeric(out)) out else NA_real_
  }, 0)
  paste(sprintf("cpu%d %.3f s", cpus - 1L, seconds), collapse = ", ")
}

write_machine <- function(path) {
  m <- describe_machine()
  writeLines(paste0(names(m), ": ", m), path)
  invisible(m)
}

# Append a child process's rows to the CSV at path, with the column names
# when it starts the file.
append_rows <- function(rows, path) {
  fresh <- !file.exists(path)
  utils::write.table(rows, path, sep = ",", append = !fresh, row.names = FALSE,
                     col.names = fresh)
}
