/* Registration of every .Call routine with its arity. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>

SEXP facloc_solve(SEXP problem, SEXP control);
SEXP facloc_objective(SEXP problem, SEXP selected, SEXP threads);
SEXP facloc_solve_bytes(SEXP problem, SEXP control);
SEXP facloc_num_procs(void);
SEXP facloc_has_openmp(void);

static const R_CallMethodDef call_methods[] = {
  {"facloc_solve", (DL_FUNC) &facloc_solve, 2},
  {"facloc_objective", (DL_FUNC) &facloc_objective, 3},
  {"facloc_solve_bytes", (DL_FUNC) &facloc_solve_bytes, 2},
  {"facloc_num_procs", (DL_FUNC) &facloc_num_procs, 0},
  {"facloc_has_openmp", (DL_FUNC) &facloc_has_openmp, 0},
  {NULL, NULL, 0}
};

void attribute_visible R_init_facloc(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}
