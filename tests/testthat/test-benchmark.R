# facility_benchmark() on a tiny configuration, scaling_table() arithmetic on
# hand-built rows, read_benchmark() on files, and classed errors for bad
# arguments.

two <- min(2L, facloc:::thread_cap())
tiny <- function(...) facility_benchmark(c("small", "heavy_skew"), modes = c("g", "dc"),
                                         threads = unique(c(1L, two)), k = 5, reps = 2,
                                         n = 120, progress = FALSE, ...)

test_that("facility_benchmark() returns one typed row per run", {
  bench <- tiny()
  expect_s3_class(bench, "facility_benchmark")
  expect_named(bench, c("suite", "preset", "n", "d", "k", "mode", "threads", "rep",
                        "seconds", "evaluations", "objective", "quality",
                        "bound_ratio", "peak_bytes", "baseline_bytes", "reference", "error"))
  types <- c(suite = "character", preset = "character", n = "integer", d = "integer",
             k = "integer", mode = "character", threads = "integer", rep = "integer",
             seconds = "double", evaluations = "double", objective = "double",
             quality = "double", bound_ratio = "double", peak_bytes = "double",
             baseline_bytes = "double", reference = "character", error = "character")
  expect_identical(vapply(bench, typeof, ""), types)

  threads <- unique(c(1L, two))
  combos <- expand.grid(rep = 1:2, threads = threads, mode = c("g", "dc"),
                        preset = c("small", "heavy_skew"), stringsAsFactors = FALSE)
  expect_identical(nrow(bench), nrow(combos))
  key <- function(d) sort(paste(d$preset, d$mode, d$threads, d$rep))
  expect_identical(key(bench), key(combos))
  expect_true(all(bench$n == 120L & bench$d == 32L & bench$k == 5L))
  expect_identical(bench$suite[bench$preset == "heavy_skew"][1], "skew")
  expect_true(all(is.na(bench$error)))
  expect_true(all(bench$seconds >= 0))
  expect_true(all(bench$evaluations > 0))

  # both modes are exact greedy, so they equal the exact reference
  expect_true(all(bench$reference == "exact"))
  expect_equal(bench$quality, rep(1, nrow(bench)))
  for (p in c("small", "heavy_skew")) {
    X <- facility_data(p, n = 120)
    fit <- facility_greedy(X, 5, mode = "g", threads = 1, sigma = 20)
    expect_equal(bench$objective[bench$preset == p], rep(fit$objective, 2 * 2 * length(threads)))
    g1 <- bench$preset == p & bench$mode == "g" & bench$threads == 1L
    expect_equal(bench$bound_ratio[g1], rep(fit$objective / fit$bound, 2))
  }
  refs <- attr(bench, "reference")
  expect_identical(refs$preset, c("small", "heavy_skew"))
  expect_identical(refs$reference, c("exact", "exact"))
  expect_false(attr(bench, "interrupted"))
  expect_output(print(bench), "facility_benchmark: 16 runs|facility_benchmark: 8 runs")
})

test_that("suites expand to their presets and k defaults to the preset's", {
  bench <- facility_benchmark("skew", modes = "dc", threads = 1, reps = 1, n = 110,
                              progress = FALSE)
  expect_identical(bench$preset, c("uniform", "mild_skew", "heavy_skew"))
  expect_identical(bench$k, rep(100L, 3))
})

test_that("progress shows one line per run", {
  msgs <- capture_messages(
    facility_benchmark("small", modes = "dc", threads = 1, k = 3, reps = 2, n = 50))
  expect_length(msgs, 2L)
  expect_match(msgs[2], "[2/2] small", fixed = TRUE)
  expect_match(msgs[2], "dc.*threads=1.*rep=2.*quality 100")
  expect_silent(facility_benchmark("small", modes = "dc", threads = 1, k = 3, reps = 1,
                                   n = 50, progress = FALSE))
})

test_that("rows go to `file` as they finish and read back with their types", {
  path <- tempfile(fileext = ".csv")
  on.exit(unlink(path))
  bench <- tiny(file = path)
  back <- read_benchmark(path)
  expect_s3_class(back, "facility_benchmark")
  expect_equal(as.data.frame(back), as.data.frame(bench), ignore_attr = TRUE)
  # a second benchmark appends without a second header
  facility_benchmark("small", modes = "dc", threads = 1, k = 3, reps = 1, n = 50,
                     progress = FALSE, file = path)
  expect_identical(nrow(read_benchmark(path)), nrow(bench) + 1L)
})

test_that("a file with other columns is refused; older files read back", {
  path <- tempfile(fileext = ".csv")
  on.exit(unlink(path))
  write.csv(data.frame(a = 1, b = 2), path, row.names = FALSE)
  expect_arg_error(facility_benchmark("small", modes = "dc", threads = 1, k = 3,
                                      reps = 1, n = 50, progress = FALSE, file = path),
                   "file")
  old <- data.frame(preset = "small", mode = "dc", threads = 1L, rep = 1L, seconds = 0.5,
                    quality = 1)
  write.csv(old, path, row.names = FALSE)
  back <- read_benchmark(path)
  expect_identical(names(back)[1:3], c("suite", "preset", "n"))
  expect_identical(back$peak_bytes, NA_real_)
  expect_identical(back$error, NA_character_)
  expect_equal(scaling_table(back)$`1T`, 1)
})

# A bench_run() that signals an interrupt on its third call.
interrupt_third_run <- function(env = parent.frame()) {
  real <- get("bench_run", asNamespace("facloc"))
  calls <- 0L
  local_facloc_binding("bench_run", function(...) {
    calls <<- calls + 1L
    if (calls == 3L) stop(interrupt_condition())
    real(...)
  }, env = env)
}

test_that("an interrupt returns the finished rows", {
  interrupt_third_run()
  path <- tempfile(fileext = ".csv")
  on.exit(unlink(path), add = TRUE)
  msgs <- capture_messages(bench <- facility_benchmark("small", modes = "dc", threads = 1,
                                                       k = 3, reps = 5, n = 50, file = path))
  expect_match(msgs[3], "interrupted; returning the 2 finished runs")
  expect_true(attr(bench, "interrupted"))
  expect_identical(bench$rep, 1:2)
  expect_identical(nrow(read_benchmark(path)), 2L)
})

test_that("an interrupt keeps rows still waiting for a best-known reference", {
  interrupt_third_run()
  local_facloc_binding("exact_reference", function(...) NULL)
  bench <- facility_benchmark("small", modes = "dc", threads = 1, k = 3, reps = 5,
                              n = 50, progress = FALSE)
  expect_true(attr(bench, "interrupted"))
  expect_identical(bench$rep, 1:2)
  expect_identical(bench$reference, c("best", "best"))
  expect_equal(bench$quality, c(1, 1))
  expect_identical(attr(bench, "reference")$method, "best objective of the runs")
})

test_that("a run that fails records its error and the benchmark goes on", {
  old <- options(facloc.memory_limit = 1000)
  on.exit(options(old))
  bench <- facility_benchmark("small", modes = "dc", threads = 1, k = 3, reps = 2,
                              n = 60, progress = FALSE)
  expect_identical(nrow(bench), 2L)
  expect_true(all(is.na(bench$seconds) & is.na(bench$quality)))
  expect_match(bench$error, "memory")
  expect_identical(attr(bench, "reference")$reference, "best")
})

test_that("scaling_table() computes speedups over the 1-thread median", {
  bench <- data.frame(
    preset = c(rep("medium", 6), rep("small", 6), rep("small", 2)),
    mode = c(rep("dc", 6), rep("dc", 6), rep("g", 2)),
    threads = c(1, 1, 1, 2, 2, 2, 1, 1, 1, 4, 4, 4, 4, 4),
    seconds = c(2, 4, 3, 1.5, 1.4, 1.6, 10, 8, 9, 3, 3.6, 2.4, 1, 1),
    quality = c(1, 1, 1, 0.999, 0.998, 1, 1, 1, 1, 0.99, 0.995, 0.997, 1, 1))
  tab <- scaling_table(bench)
  expect_named(tab, c("suite", "preset", "mode", "1T", "2T", "4T", "quality"))
  # presets in the order of facility_presets(), modes in facility_greedy()'s
  expect_identical(tab$preset, c("small", "small", "medium"))
  expect_identical(tab$mode, c("g", "dc", "dc"))
  expect_identical(tab$suite, rep("size", 3))
  expect_equal(tab$`1T`, c(NA, 1, 1))
  expect_equal(tab$`2T`, c(NA, NA, 3 / 1.5))
  expect_equal(tab$`4T`, c(NA, 9 / 3, NA))
  expect_equal(tab$quality, c(1, 0.995, 0.999))

  secs <- scaling_table(bench, value = "seconds")
  expect_equal(secs$`1T`, c(NA, 9, 3))
  expect_equal(secs$`4T`, c(1, 3, NA))
  expect_identical(scaling_table(bench, modes = "g")$mode, "g")

  bench$seconds[1:3] <- NA   # failed runs are left out
  expect_equal(scaling_table(bench)$`2T`[3], NA_real_)
})

test_that("plot() of a benchmark draws without error", {
  bench <- data.frame(preset = rep(c("small", "medium"), each = 4), mode = "dc",
                      threads = rep(c(1, 1, 2, 2), 2),
                      seconds = c(2, 2.2, 1.1, 1.2, 6, 6.2, 3.5, 3.4), quality = 1)
  class(bench) <- c("facility_benchmark", "data.frame")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(bench), bench)
})

test_that("bad arguments get classed errors naming the argument", {
  expect_arg_error(facility_benchmark("huge", progress = FALSE), "presets")
  expect_arg_error(facility_benchmark(character(), progress = FALSE), "presets")
  expect_arg_error(facility_benchmark(NA_character_, progress = FALSE), "presets")
  expect_arg_error(facility_benchmark("small", modes = "fast", progress = FALSE), "modes")
  expect_arg_error(facility_benchmark("small", modes = 1, progress = FALSE), "modes")
  expect_arg_error(facility_benchmark("small", threads = 0, progress = FALSE), "threads")
  expect_arg_error(facility_benchmark("small", threads = 1.5, progress = FALSE), "threads")
  expect_arg_error(facility_benchmark("small", threads = NA, progress = FALSE), "threads")
  expect_arg_error(facility_benchmark("small", threads = "2", progress = FALSE), "threads")
  expect_arg_error(facility_benchmark("small", threads = facloc:::thread_cap() + 1,
                                      progress = FALSE), "threads")
  expect_arg_error(facility_benchmark("small", reps = 0, progress = FALSE), "reps")
  expect_arg_error(facility_benchmark("small", n = 1, progress = FALSE), "n")
  expect_arg_error(facility_benchmark("small", n = 50, k = 51, progress = FALSE), "k")
  expect_arg_error(facility_benchmark("small", sigma = -1, progress = FALSE), "sigma")
  expect_arg_error(facility_benchmark("small", control = list(), progress = FALSE), "control")
  expect_arg_error(facility_benchmark("small", file = 3, progress = FALSE), "file")
  expect_arg_error(facility_benchmark("small", progress = NA), "progress")
  expect_arg_error(scaling_table(list(a = 1)), "bench")
  expect_arg_error(scaling_table(data.frame(preset = "small", mode = "dc")), "bench")
  expect_arg_error(scaling_table(data.frame(preset = "small", mode = "dc", threads = 1,
                                            seconds = 1, quality = 1), modes = "x"), "modes")
  expect_arg_error(read_benchmark(tempfile()), "file")
})

test_that("scaling_table() rejects an unknown `value` with a classed error", {
  bench <- data.frame(preset = "small", mode = "dc", threads = c(1, 2),
                      seconds = c(2, 1), quality = 1)
  expect_arg_error(scaling_table(bench, value = "foo"), "value", "\"speedup\", \"seconds\"")
  expect_arg_error(scaling_table(bench, value = c("seconds", "speedup")), "value", "one of")
  expect_identical(attr(scaling_table(bench), "value"), "speedup")
  expect_equal(scaling_table(bench, value = "seconds")[["2T"]], 1)
})

test_that("speedups from or to a time of 0 are NA, not NaN, Inf or 0", {
  bench <- data.frame(preset = "small",
                      mode = rep(c("dc", "nhpc", "hpc"), each = 3),
                      threads = rep(c(1, 2, 4), 3),
                      seconds = c(0, 0, 0.5,  0.4, 0, 0.1,  1, 0.5, 0.25),
                      quality = 1)
  tab <- scaling_table(bench)
  speedups <- as.matrix(tab[c("1T", "2T", "4T")])
  expect_false(any(is.nan(speedups) | is.infinite(speedups)))
  expect_equal(unname(speedups[tab$mode == "dc", ]), rep(NA_real_, 3))
  expect_equal(unname(speedups[tab$mode == "nhpc", ]), c(1, NA, 4))
  expect_equal(unname(speedups[tab$mode == "hpc", ]), c(1, 2, 4))
  # the times themselves stay as measured
  expect_equal(unname(as.matrix(scaling_table(bench, value = "seconds")[tab$mode == "dc", c("1T", "2T", "4T")]))[1, ],
               c(0, 0, 0.5))
})

test_that("read_benchmark() rejects a CSV without a benchmark's columns", {
  file <- tempfile(fileext = ".csv")
  on.exit(unlink(file))
  utils::write.csv(data.frame(a = 1:2, b = 3:4), file, row.names = FALSE)
  err <- expect_arg_error(read_benchmark(file), "file", "missing preset, mode, threads")
  utils::write.csv(data.frame(preset = "small", mode = "dc", threads = 1, seconds = 2),
                   file, row.names = FALSE)
  expect_arg_error(read_benchmark(file), "file", "missing quality$")
  # an older file without the newer columns still reads, those as NA
  utils::write.csv(data.frame(preset = "small", mode = "dc", threads = 1:2,
                              seconds = c(2, 1), quality = 1), file, row.names = FALSE)
  bench <- read_benchmark(file)
  expect_s3_class(bench, "facility_benchmark")
  expect_true(all(is.na(bench$peak_bytes)))
  expect_equal(scaling_table(bench)[["2T"]], 2)
})
