/* .Call glue for facility_greedy(), facility_bound() and facility_objective().  The R wrapper
 * has validated everything; here we only convert, call the core and report
 * its status, which the wrapper turns into classed conditions. */
#include "r_util.h"
#include "facloc.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* problem: list(x = d x n matrix (row-major points), y = d x m or NULL,
 * sim = n x m or NULL, sp_p, sp_i, sp_x (CSC) or NULL, n, m, d, sigma,
 * weight or NULL, initial = 0-based integer or NULL, cost = double or NULL,
 * budget, read where cost is not NULL); every field present (r_util.h). */
static fl_problem problem_from_list(SEXP list)
{
  fl_r_args problem = fl_r_args_of(list, "problem");
  fl_problem p = { 0 };
  p.n = fl_r_int(problem, "n");
  p.m = fl_r_int(problem, "m");
  p.d = fl_r_int(problem, "d");
  p.x = fl_r_doubles(problem, "x");
  p.y = fl_r_doubles(problem, "y");
  if (!p.y) p.y = p.x;
  double sigma = fl_r_double(problem, "sigma");
  p.inv2s2 = 1.0 / (2.0 * sigma * sigma);
  p.sim = fl_r_doubles(problem, "sim");
  p.sp_p = fl_r_ints(problem, "sp_p");
  p.sp_i = fl_r_ints(problem, "sp_i");
  p.sp_x = fl_r_doubles(problem, "sp_x");
  p.weight = fl_r_doubles(problem, "weight");
  p.initial = fl_r_ints(problem, "initial");
  p.ninitial = p.initial ? Rf_length(fl_r_get(problem, "initial")) : 0;
  p.cost = fl_r_doubles(problem, "cost");
  if (p.cost) p.budget = fl_r_double(problem, "budget");
  return p;
}

static void report_progress(void *ctx, int round, int nsel, double objective)
{
  (void) ctx;
  Rprintf("facloc: round %d, %d selected, f(S) = %.6g\n", round, nsel, objective);
  R_FlushConsole();
}

/* control: list(mode, k, threads, batch, eps, tau, clusters, group_size,
 * seed, epsilon, target, certify, single, stream, stream_lists, verbose (read by
 * facloc_solve())), as
 * solver_control() builds it. */
static fl_control control_from_list(SEXP list)
{
  fl_r_args control = fl_r_args_of(list, "control");
  fl_control c = { 0 };
  c.mode = (fl_mode) fl_mode_lookup(fl_r_string(control, "mode"));   /* -1: FL_ERR_ARG */
  c.k = fl_r_int(control, "k");
  c.threads = fl_r_int(control, "threads");
  c.batch = fl_r_int(control, "batch");
  c.eps = fl_r_double(control, "eps");
  c.tau = fl_r_double(control, "tau");
  c.clusters = fl_r_int(control, "clusters");
  c.group_size = fl_r_int(control, "group_size");
  c.seed = (unsigned int) fl_r_double(control, "seed");
  c.epsilon = fl_r_double(control, "epsilon");
  c.target = fl_r_double(control, "target");
  c.certify = fl_r_int(control, "certify");
  c.certify_goal = fl_r_double(control, "certify_goal");
  c.single = fl_r_lgl(control, "single") == TRUE;
  c.stream = fl_r_lgl(control, "stream") == TRUE;
  c.stream_lists = fl_r_double(control, "stream_lists");
  return c;
}

/* The bound's fields of a result, after the `first` elements of out. */
static void bound_fields(SEXP out, int first, const fl_result *res)
{
  SET_VECTOR_ELT(out, first, Rf_ScalarReal(res->bound));
  SET_VECTOR_ELT(out, first + 1, Rf_ScalarReal(res->bound_online));
  SET_VECTOR_ELT(out, first + 2, Rf_ScalarReal(res->bound_dual));
  SET_VECTOR_ELT(out, first + 3, Rf_ScalarReal(res->bound_evaluations));
  SET_VECTOR_ELT(out, first + 4, Rf_ScalarReal(res->bound_seconds));
  SET_VECTOR_ELT(out, first + 5, Rf_ScalarInteger(res->dual_steps));
}
#define FL_BOUND_NAMES "bound", "bound_online", "bound_dual", "bound_evaluations", \
    "bound_seconds", "dual_steps"

SEXP facloc_solve(SEXP problem, SEXP control)
{
  fl_problem p = problem_from_list(problem);
  fl_control c = control_from_list(control);
  c.interrupted = fl_r_interrupted;
  if (fl_r_lgl(fl_r_args_of(control, "control"), "verbose") == TRUE)
    c.progress = report_progress;

  SEXP selected = PROTECT(Rf_allocVector(INTSXP, c.k));
  SEXP gains = PROTECT(Rf_allocVector(REALSXP, c.k));
  SEXP trace_f = PROTECT(Rf_allocVector(REALSXP, c.k + 1));
  SEXP trace_b = PROTECT(Rf_allocVector(REALSXP, c.k + 1));
  SEXP dual = PROTECT(Rf_allocVector(REALSXP, c.certify + 1));
  fl_result res = { 0 };
  res.selected = INTEGER(selected);
  res.gains = REAL(gains);
  res.trace_objective = REAL(trace_f);
  res.trace_bound = REAL(trace_b);
  res.dual_trace = REAL(dual);
  for (int t = 0; t <= c.certify; t++) res.dual_trace[t] = NA_REAL;
  int status = fl_solve(&p, &c, &res);
  for (int t = 0; t < res.nselected; t++) res.selected[t] += 1;

  const char *names[] = { "status", "selected", "gains", "objective", "evaluations",
                          "pairs", "rounds", "budget_rule", "trace_objective",
                          "trace_bound", "dual_trace", FL_BOUND_NAMES };
  SEXP out = PROTECT(fl_r_list(17, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  SET_VECTOR_ELT(out, 1, Rf_lengthgets(selected, res.nselected));
  SET_VECTOR_ELT(out, 2, Rf_lengthgets(gains, res.nselected));
  SET_VECTOR_ELT(out, 3, Rf_ScalarReal(res.objective));
  SET_VECTOR_ELT(out, 4, Rf_ScalarReal(res.evaluations));
  SET_VECTOR_ELT(out, 5, Rf_ScalarReal(res.pairs));
  SET_VECTOR_ELT(out, 6, Rf_ScalarInteger(res.rounds));
  SET_VECTOR_ELT(out, 7, Rf_ScalarInteger(res.budget_rule));
  SET_VECTOR_ELT(out, 8, Rf_lengthgets(trace_f, res.nselected + 1));
  SET_VECTOR_ELT(out, 9, Rf_lengthgets(trace_b, res.nselected + 1));
  SET_VECTOR_ELT(out, 10, dual);
  bound_fields(out, 11, &res);
  UNPROTECT(6);
  return out;
}

/* Certify a given set (0-based `selected`) for control$k picks. */
SEXP facloc_bound(SEXP problem, SEXP selected, SEXP control)
{
  fl_problem p = problem_from_list(problem);
  fl_control c = control_from_list(control);
  c.interrupted = fl_r_interrupted;
  SEXP dual = PROTECT(Rf_allocVector(REALSXP, c.certify + 1));
  fl_result res = { 0 };
  res.dual_trace = REAL(dual);
  for (int t = 0; t <= c.certify; t++) res.dual_trace[t] = NA_REAL;
  int status = fl_bound(&p, INTEGER(selected), Rf_length(selected), &c, &res);
  const char *names[] = { "status", "objective", "pairs", "dual_trace", FL_BOUND_NAMES };
  SEXP out = PROTECT(fl_r_list(10, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  SET_VECTOR_ELT(out, 1, Rf_ScalarReal(res.objective));
  SET_VECTOR_ELT(out, 2, Rf_ScalarReal(res.pairs));
  SET_VECTOR_ELT(out, 3, dual);
  bound_fields(out, 4, &res);
  UNPROTECT(2);
  return out;
}

/* The matrix-free oracle's c_j(u) at u = alpha times the coverage of
 * `selected` (0-based), for tests against exact values. */
SEXP facloc_mf_dual_values(SEXP problem, SEXP control, SEXP selected, SEXP alpha)
{
  fl_problem p = problem_from_list(problem);
  fl_control c = control_from_list(control);
  SEXP value = PROTECT(Rf_allocVector(REALSXP, p.m));
  int status = fl_mf_dual_values(&p, &c, INTEGER(selected), Rf_length(selected),
                                 Rf_asReal(alpha), REAL(value));
  SEXP out = fl_r_status_list(status, "value", value);
  UNPROTECT(1);
  return out;
}

/* B(u) for k picks (tests of the LP dual against a plain-R one). */
SEXP facloc_dual_value(SEXP problem, SEXP u, SEXP k, SEXP threads)
{
  fl_problem p = problem_from_list(problem);
  double value = 0.0;
  int status = fl_dual_at(&p, Rf_asInteger(k), Rf_asInteger(threads), REAL(u), &value);
  SEXP v = PROTECT(Rf_ScalarReal(value));
  SEXP out = fl_r_status_list(status, "value", v);
  UNPROTECT(1);
  return out;
}

/* selected: 0-based integer vector.  Returns list(status, objective). */
SEXP facloc_objective(SEXP problem, SEXP selected, SEXP threads)
{
  fl_problem p = problem_from_list(problem);
  double value = 0.0;
  int status = fl_objective(&p, INTEGER(selected), Rf_length(selected),
                            Rf_asInteger(threads), &value);
  SEXP v = PROTECT(Rf_ScalarReal(value));
  SEXP out = fl_r_status_list(status, "objective", v);
  UNPROTECT(1);
  return out;
}

SEXP facloc_solve_bytes(SEXP problem, SEXP control)
{
  fl_problem p = problem_from_list(problem);
  fl_control c = control_from_list(control);
  return Rf_ScalarReal(fl_solve_bytes(&p, &c));
}

SEXP facloc_num_procs(void)
{
  return Rf_ScalarInteger(fl_num_procs());
}

/* Set how teams are sized (0 auto, 1 one thread, 2 full; NA keeps it) and
 * return the counts of fl_team_counts(). */
SEXP facloc_team(SEXP policy)
{
  int pol = Rf_asInteger(policy);
  if (pol != NA_INTEGER) {
    if (pol < FL_TEAM_AUTO || pol > FL_TEAM_FULL) Rf_error("'policy' must be 0, 1 or 2");
    fl_team_policy(pol);
  }
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 4));
  fl_team_counts(REAL(out));
  UNPROTECT(1);
  return out;
}

/* The modes of fl_solve.c's table: list(name, kind). */
SEXP facloc_modes(void)
{
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
  SEXP name = PROTECT(Rf_allocVector(STRSXP, FL_MODE_COUNT));
  SEXP kind = PROTECT(Rf_allocVector(STRSXP, FL_MODE_COUNT));
  for (int m = 0; m < FL_MODE_COUNT; m++) {
    SET_STRING_ELT(name, m, Rf_mkChar(fl_mode_name((fl_mode) m)));
    SET_STRING_ELT(kind, m, Rf_mkChar(fl_mode_kind((fl_mode) m)));
  }
  SET_VECTOR_ELT(out, 0, name);
  SET_VECTOR_ELT(out, 1, kind);
  SEXP names = PROTECT(Rf_allocVector(STRSXP, 2));
  SET_STRING_ELT(names, 0, Rf_mkChar("name"));
  SET_STRING_ELT(names, 1, Rf_mkChar("kind"));
  Rf_setAttrib(out, R_NamesSymbol, names);
  UNPROTECT(4);
  return out;
}

SEXP facloc_has_openmp(void)
{
  return Rf_ScalarLogical(FL_HAVE_OMP ? TRUE : FALSE);
}

/* The tunables of fl_tune.h that ?facility_control and ?facility_bound
 * quote, by name, so that a test holds the help to the compiled values. */
SEXP facloc_tunables(void)
{
  static const struct { const char *name; double value; } tunable[] = {
    { "FL_EST_FRACTION", FL_EST_FRACTION }, { "FL_COLD_SD", FL_COLD_SD },
    { "FL_GUESS_GAIN_FRACTION", FL_GUESS_GAIN_FRACTION }, { "FL_DROP_CAP", FL_DROP_CAP },
    { "FL_FIRST_COARSE", FL_FIRST_COARSE }, { "FL_GUESS_EST_FRACTION", FL_GUESS_EST_FRACTION },
    { "FL_MIXED_SHARE", FL_MIXED_SHARE }, { "FL_MIXED_EXCESS", FL_MIXED_EXCESS },
    { "FL_MIXED_SPLIT", FL_MIXED_SPLIT }, { "FL_TIE", FL_TIE },
    { "FL_FINE_FRACTION", FL_FINE_FRACTION }, { "FL_GAIN_FRACTION", FL_GAIN_FRACTION },
    { "FL_CONTEST", FL_CONTEST }, { "FL_TEAM_BATCH", FL_TEAM_BATCH },
    { "FL_LOOSE_SHARE", FL_LOOSE_SHARE }, { "FL_PRUNE_SHARE", FL_PRUNE_SHARE },
    { "FL_DUAL_RISES", FL_DUAL_RISES }, { "FL_DUAL_RAISE_GAIN", FL_DUAL_RAISE_GAIN },
    { "FL_LAZY_SHARE", FL_LAZY_SHARE }, { "FL_LAZY_SAMPLE", FL_LAZY_SAMPLE },
    { "FL_LAZY_COVER", FL_LAZY_COVER }
  };
  const int n = (int) (sizeof tunable / sizeof tunable[0]);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP names = PROTECT(Rf_allocVector(STRSXP, n));
  for (int t = 0; t < n; t++) {
    REAL(out)[t] = tunable[t].value;
    SET_STRING_ELT(names, t, Rf_mkChar(tunable[t].name));
  }
  Rf_setAttrib(out, R_NamesSymbol, names);
  UNPROTECT(2);
  return out;
}
