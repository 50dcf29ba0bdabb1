/* .Call glue for knn_similarity() and predict(): the R wrappers have
 * validated the inputs (points transposed to d x n, k in 1..m). */
#include <math.h>
#include <stdlib.h>
#include "r_util.h"
#include "facloc.h"
#include "knn.h"

SEXP facloc_knn_bytes(SEXP m, SEXP d, SEXP k, SEXP threads)
{
  return Rf_ScalarReal(fl_knn_bytes(Rf_asInteger(m), Rf_asInteger(d),
                                    Rf_asInteger(k), Rf_asInteger(threads)));
}

/* x: d x n, y: d x m or NULL (= x).  Returns list(status, p, i, x) of the n x m CSC
 * similarity exp(-||x_i - y_j||^2 / (2 sigma^2)) on the k nearest j of
 * each i. */
SEXP facloc_knn_similarity(SEXP x, SEXP y, SEXP k, SEXP sigma, SEXP threads)
{
  if (Rf_isNull(y)) y = x;     /* the clients are the candidates */
  int d = Rf_nrows(x), n = Rf_ncols(x), m = Rf_ncols(y), kk = Rf_asInteger(k);
  double s = Rf_asReal(sigma);
  size_t nnz = (size_t) n * kk;
  const char *names[] = { "status", "p", "i", "x" };
  SEXP out = PROTECT(fl_r_list(4, names));
  /* R allocations first: they may longjmp, which must not leak ours */
  SET_VECTOR_ELT(out, 1, Rf_allocVector(INTSXP, (R_xlen_t) m + 1));
  SET_VECTOR_ELT(out, 2, Rf_allocVector(INTSXP, (R_xlen_t) nnz));
  SET_VECTOR_ELT(out, 3, Rf_allocVector(REALSXP, (R_xlen_t) nnz));
  int *nbr = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
  double *dist2 = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
  int status = (nbr && dist2) ? FL_OK : FL_ERR_NOMEM;
  if (status == FL_OK)
    status = fl_knn(REAL(x), n, REAL(y), m, d, kk, Rf_asInteger(threads), nbr, dist2);
  if (status == FL_OK)
    status = fl_knn_csc(n, m, kk, nbr, dist2, 1.0 / (2.0 * s * s),
                        INTEGER(VECTOR_ELT(out, 1)), INTEGER(VECTOR_ELT(out, 2)),
                        REAL(VECTOR_ELT(out, 3)));
  free(nbr); free(dist2);
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  UNPROTECT(1);
  return out;
}

/* Nearest of the facilities y (d x m) for each point x (d x n), ties to the
 * lowest facility index.  Returns list(status, index (1-based), similarity). */
SEXP facloc_nearest(SEXP x, SEXP y, SEXP sigma, SEXP threads)
{
  int d = Rf_nrows(x), n = Rf_ncols(x), m = Rf_ncols(y);
  double s = Rf_asReal(sigma), inv2s2 = 1.0 / (2.0 * s * s);
  const char *names[] = { "status", "index", "similarity" };
  SEXP out = PROTECT(fl_r_list(3, names));
  SEXP index = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP sim = PROTECT(Rf_allocVector(REALSXP, n));
  int status = fl_knn(REAL(x), n, REAL(y), m, d, 1, Rf_asInteger(threads),
                      INTEGER(index), REAL(sim));
  for (int i = 0; status == FL_OK && i < n; i++) {
    INTEGER(index)[i] += 1;
    REAL(sim)[i] = exp(-REAL(sim)[i] * inv2s2);
  }
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  SET_VECTOR_ELT(out, 1, index);
  SET_VECTOR_ELT(out, 2, sim);
  UNPROTECT(3);
  return out;
}
