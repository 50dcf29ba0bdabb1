/* Registration of every .Call routine with its arity. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>

SEXP facloc_solve(SEXP problem, SEXP control);
SEXP facloc_objective(SEXP problem, SEXP selected, SEXP threads);
SEXP facloc_bound(SEXP problem, SEXP selected, SEXP control);
SEXP facloc_dual_value(SEXP problem, SEXP u, SEXP k, SEXP threads);
SEXP facloc_mf_dual_values(SEXP problem, SEXP control, SEXP selected, SEXP alpha);
SEXP facloc_solve_bytes(SEXP problem, SEXP control);
SEXP facloc_num_procs(void);
SEXP facloc_team(SEXP policy);
SEXP facloc_has_openmp(void);
SEXP facloc_modes(void);
SEXP facloc_tunables(void);
SEXP facloc_median_distance(SEXP x, SEXP threads);
SEXP facloc_median_width(SEXP d);
SEXP facloc_occ(SEXP kind, SEXP x, SEXP control);
SEXP facloc_all_finite(SEXP x);
SEXP facloc_point_rows(SEXP x, SEXP threads);
SEXP facloc_occ_predict(SEXP kind, SEXP x, SEXP model, SEXP threads);
SEXP facloc_occ_wpropose(SEXP env, SEXP lo, SEXP hi);
SEXP facloc_occ_wapply(SEXP env, SEXP ap);
SEXP facloc_occ_wpartial(SEXP env);
SEXP facloc_occ_wrelabel(SEXP env, SEXP map, SEXP oldk);
SEXP facloc_occ_cvalidate(SEXP kind, SEXP props, SEXP model, SEXP lambda);
SEXP facloc_occ_cupdate(SEXP kind, SEXP partial, SEXP K, SEXP d);
SEXP facloc_knn_similarity(SEXP x, SEXP y, SEXP k, SEXP sigma, SEXP threads);
SEXP facloc_knn_bytes(SEXP m, SEXP d, SEXP k, SEXP threads);
SEXP facloc_nearest(SEXP x, SEXP y, SEXP sigma, SEXP threads);
SEXP facloc_pass(SEXP x, SEXP sigma, SEXP threads);
SEXP facloc_cosine(SEXP x, SEXP y, SEXP threads, SEXP dimnames);

static const R_CallMethodDef call_methods[] = {
  {"facloc_solve", (DL_FUNC) &facloc_solve, 2},
  {"facloc_objective", (DL_FUNC) &facloc_objective, 3},
  {"facloc_bound", (DL_FUNC) &facloc_bound, 3},
  {"facloc_dual_value", (DL_FUNC) &facloc_dual_value, 4},
  {"facloc_mf_dual_values", (DL_FUNC) &facloc_mf_dual_values, 4},
  {"facloc_solve_bytes", (DL_FUNC) &facloc_solve_bytes, 2},
  {"facloc_num_procs", (DL_FUNC) &facloc_num_procs, 0},
  {"facloc_team", (DL_FUNC) &facloc_team, 1},
  {"facloc_has_openmp", (DL_FUNC) &facloc_has_openmp, 0},
  {"facloc_modes", (DL_FUNC) &facloc_modes, 0},
  {"facloc_tunables", (DL_FUNC) &facloc_tunables, 0},
  {"facloc_median_distance", (DL_FUNC) &facloc_median_distance, 2},
  {"facloc_median_width", (DL_FUNC) &facloc_median_width, 1},
  {"facloc_occ", (DL_FUNC) &facloc_occ, 3},
  {"facloc_all_finite", (DL_FUNC) &facloc_all_finite, 1},
  {"facloc_point_rows", (DL_FUNC) &facloc_point_rows, 2},
  {"facloc_occ_predict", (DL_FUNC) &facloc_occ_predict, 4},
  {"facloc_occ_wpropose", (DL_FUNC) &facloc_occ_wpropose, 3},
  {"facloc_occ_wapply", (DL_FUNC) &facloc_occ_wapply, 2},
  {"facloc_occ_wpartial", (DL_FUNC) &facloc_occ_wpartial, 1},
  {"facloc_occ_wrelabel", (DL_FUNC) &facloc_occ_wrelabel, 3},
  {"facloc_occ_cvalidate", (DL_FUNC) &facloc_occ_cvalidate, 4},
  {"facloc_occ_cupdate", (DL_FUNC) &facloc_occ_cupdate, 4},
  {"facloc_knn_similarity", (DL_FUNC) &facloc_knn_similarity, 5},
  {"facloc_knn_bytes", (DL_FUNC) &facloc_knn_bytes, 4},
  {"facloc_nearest", (DL_FUNC) &facloc_nearest, 4},
  {"facloc_pass", (DL_FUNC) &facloc_pass, 3},
  {"facloc_cosine", (DL_FUNC) &facloc_cosine, 4},
  {NULL, NULL, 0}
};

void attribute_visible R_init_facloc(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}
