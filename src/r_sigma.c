/* .Call glue for facility_sigma(). */
#include "r_util.h"
#include "kernel_sigma.h"

/* x: an n x d double matrix (the sampled rows); threads: one integer,
 * validated in R.  Returns list(status, width). */
SEXP facloc_median_distance(SEXP x, SEXP threads)
{
  double width;
  int status = fl_median_distance(REAL(x), Rf_nrows(x), Rf_ncols(x), Rf_asInteger(threads),
                                  &width);
  SEXP w = PROTECT(Rf_ScalarReal(width));
  SEXP out = fl_r_status_list(status, "width", w);
  UNPROTECT(1);
  return out;
}

/* d: a double vector of distances.  Returns list(status, width). */
SEXP facloc_median_width(SEXP d)
{
  double width;
  int status = fl_median_width(REAL(d), (size_t) XLENGTH(d), &width);
  SEXP w = PROTECT(Rf_ScalarReal(width));
  SEXP out = fl_r_status_list(status, "width", w);
  UNPROTECT(1);
  return out;
}
