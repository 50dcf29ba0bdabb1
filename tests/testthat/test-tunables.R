# ?facility_control and ?facility_bound quote values of src/fl_tune.h in
# words and numbers.
# Each quoted phrase is rebuilt here from the compiled value, so changing a
# tunable without its help fails.

tunables <- function() .Call(get("C_facloc_tunables", asNamespace("facloc")))

control_help <- function(topic = "facility_control") {
  rd <- tools::Rd_db("facloc")[[paste0(topic, ".Rd")]]
  gsub("\\s+", " ", paste(as.character(rd), collapse = ""))
}

percent <- function(x) paste0(format(100 * x), "%")
times_word <- function(x) c(`2` = "twice", `3` = "three")[[format(x)]]

test_that("the tunables ?facility_control quotes are the compiled ones", {
  v <- as.list(tunables())
  help <- control_help()
  phrases <- c(
    est = sprintf("below \\code{eps / %g} times", 1 / v$FL_EST_FRACTION),
    cold = sprintf("%s standard deviations", times_word(v$FL_COLD_SD)),
    guess = sprintf("below %s of the threshold, the estimates", percent(v$FL_GUESS_GAIN_FRACTION)),
    cap = sprintf("at most %g times the threshold", v$FL_DROP_CAP),
    cap_eps = sprintf("\\code{%g * eps} of the last gain", v$FL_DROP_CAP),
    first = sprintf("at least 1/%g of the threshold",
                    1 / (v$FL_FIRST_COARSE * v$FL_GUESS_EST_FRACTION)),
    mixed = sprintf("than %s of the leaves", percent(v$FL_MIXED_SHARE)),
    excess = sprintf("more than %s as much", times_word(v$FL_MIXED_EXCESS)),
    split = sprintf("more than %s of that spread", percent(v$FL_MIXED_SPLIT)),
    tie = sprintf("raised by %s", percent(v$FL_TIE)),
    fine = sprintf("bounded below %s of the threshold", percent(v$FL_FINE_FRACTION)),
    fine_mass = sprintf("mass below 1/%g of that", 1 / v$FL_EST_FRACTION),
    gain = sprintf("below %s of that %s", percent(v$FL_GAIN_FRACTION), percent(v$FL_FINE_FRACTION)),
    contest = sprintf("within \\code{eps / %g} of its gain", 1 / v$FL_CONTEST),
    contest_most = sprintf("up to %d of them", v$FL_TEAM_BATCH - 1),
    loose = sprintf("at most a %s of the pairs", c(`0.1` = "tenth")[[format(v$FL_LOOSE_SHARE)]]),
    prune = sprintf("at most \\code{eps / %g} of the gain", 1 / v$FL_PRUNE_SHARE),
    lazy = sprintf("would cost at most a %s of the first evaluations", c(`0.25` = "quarter")[[format(v$FL_LAZY_SHARE)]]),
    sample = sprintf("as measured on one in %d)", v$FL_LAZY_SAMPLE),
    cover = sprintf("covers at least %s of the clients' weight", c(`0.5` = "half")[[format(v$FL_LAZY_COVER)]])
  )
  for (name in names(phrases))
    expect_true(grepl(phrases[[name]], help, fixed = TRUE),
                label = paste0(name, ": \"", phrases[[name]], "\" in ?facility_control"))
})

test_that("the tunables ?facility_bound quotes are the compiled ones", {
  v <- as.list(tunables())
  help <- control_help("facility_bound")
  phrases <- c(
    rises = sprintf("followed by up to %d steps that only raise", v$FL_DUAL_RISES),
    gain = sprintf("lowers \\eqn{B} by at least %s;", sub("%", "\\%", percent(v$FL_DUAL_RAISE_GAIN), fixed = TRUE))
  )
  for (name in names(phrases))
    expect_true(grepl(phrases[[name]], help, fixed = TRUE),
                label = paste0(name, ": \"", phrases[[name]], "\" in ?facility_bound"))
})

test_that("the help check fails on a changed value", {
  v <- tunables()
  expect_false(grepl(sprintf("at most %g times the threshold", v[["FL_DROP_CAP"]] + 1),
                     control_help(), fixed = TRUE))
})
