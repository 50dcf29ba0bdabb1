/* .Call glue for facility_pass_time(). */
#include "r_util.h"
#include "fl_pass.h"

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
