/* .Call glue for facility_pass_time(). */
#include "r_util.h"
#include "kernel_pass.h"
#include "exact_state.h"
#include "fl_memory.h"

/* x: d x n points (row-major clients, also the candidates).  Returns
 * list(status, gains). */
SEXP facloc_pass(SEXP x, SEXP sigma, SEXP threads)
{
  fl_problem p = { 0 };
  p.d = Rf_nrows(x);
  p.n = p.m = Rf_ncols(x);
  p.x = p.y = REAL(x);
  double s = Rf_asReal(sigma);
  p.inv2s2 = 1.0 / (2.0 * s * s);
  SEXP gains = PROTECT(Rf_allocVector(REALSXP, p.m));
  int status = fl_pass_gains(&p, Rf_asInteger(threads), REAL(gains));
  SEXP out = fl_r_status_list(status, "gains", gains);
  UNPROTECT(1);
  return out;
}

/* x: d x n points of unit length (rows of X), y: d x m or NULL (the
 * clients), dimnames the matrix's dimnames or NULL.  Returns list(status,
 * similarity), similarity the n x m matrix max(0, cos) by the tiled kernel
 * (cosine_similarity()), named here: named in R once in the list, it
 * would be copied whole. */
SEXP facloc_cosine(SEXP x, SEXP y, SEXP threads, SEXP dimnames)
{
  fl_problem p = { 0 };
  p.d = Rf_nrows(x);
  p.n = Rf_ncols(x);
  p.x = REAL(x);
  p.y = Rf_isNull(y) ? p.x : REAL(y);
  p.m = Rf_isNull(y) ? p.n : Rf_ncols(y);
  SEXP sim = PROTECT(Rf_allocMatrix(REALSXP, p.n, p.m));
  fl_advise_huge(REAL(sim), sizeof(double) * (size_t) p.n * (size_t) p.m);   /* its first touch */
  int status = fl_similarity_fill(&p, Rf_asInteger(threads), 1, REAL(sim), NULL);
  if (!Rf_isNull(dimnames)) Rf_setAttrib(sim, R_DimNamesSymbol, dimnames);
  SEXP out = fl_r_status_list(status, "similarity", sim);
  UNPROTECT(1);
  return out;
}
