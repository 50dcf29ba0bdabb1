#include <string.h>
#include "r_util.h"
#include "fl_memory.h"
#include "fl_omp.h"
#include "fl_tune.h"

fl_r_args fl_r_args_of(SEXP list, const char *what)
{
  if (TYPEOF(list) != VECSXP || Rf_isNull(Rf_getAttrib(list, R_NamesSymbol)))
    Rf_error("internal error: the %s passed to C is not a named list", what);
  fl_r_args a = { list, what };
  return a;
}

SEXP fl_r_optional(fl_r_args a, const char *name)
{
  SEXP names = Rf_getAttrib(a.list, R_NamesSymbol);
  for (R_xlen_t t = 0; t < XLENGTH(a.list); t++)
    if (strcmp(CHAR(STRING_ELT(names, t)), name) == 0) return VECTOR_ELT(a.list, t);
  return R_UnboundValue;
}

SEXP fl_r_get(fl_r_args a, const char *name)
{
  SEXP v = fl_r_optional(a, name);
  if (v == R_UnboundValue)
    Rf_error("internal error: the %s passed to C has no field '%s'", a.what, name);
  return v;
}

/* The field as one number (or logical), an error naming it otherwise. */
static SEXP scalar(fl_r_args a, const char *name)
{
  SEXP v = fl_r_get(a, name);
  if (Rf_xlength(v) != 1 || !(Rf_isNumeric(v) || Rf_isLogical(v)))
    Rf_error("internal error: field '%s' of the %s passed to C must be one number",
             name, a.what);
  return v;
}

int fl_r_int(fl_r_args a, const char *name)
{
  return Rf_asInteger(scalar(a, name));
}

int fl_r_lgl(fl_r_args a, const char *name)
{
  return Rf_asLogical(scalar(a, name));
}

/* The first string of field name, "" when it has none. */
const char *fl_r_string(fl_r_args a, const char *name)
{
  SEXP v = fl_r_get(a, name);
  return TYPEOF(v) == STRSXP && XLENGTH(v) > 0 ? CHAR(STRING_ELT(v, 0)) : "";
}

double fl_r_double(fl_r_args a, const char *name)
{
  return Rf_asReal(scalar(a, name));
}

static SEXP typed(fl_r_args a, const char *name, SEXPTYPE type, const char *type_name)
{
  SEXP v = fl_r_get(a, name);
  if (!Rf_isNull(v) && TYPEOF(v) != type)
    Rf_error("internal error: field '%s' of the %s passed to C must be %s or NULL",
             name, a.what, type_name);
  return v;
}

const double *fl_r_doubles(fl_r_args a, const char *name)
{
  SEXP v = typed(a, name, REALSXP, "double");
  return Rf_isNull(v) ? NULL : REAL(v);
}

const int *fl_r_ints(fl_r_args a, const char *name)
{
  SEXP v = typed(a, name, INTSXP, "integer");
  return Rf_isNull(v) ? NULL : INTEGER(v);
}

static void check_interrupt(void *dummy)
{
  (void) dummy;
  R_CheckUserInterrupt();
}

int fl_r_interrupted(void *ctx)
{
  (void) ctx;
  return !R_ToplevelExec(check_interrupt, NULL);
}

SEXP fl_r_list(int n, const char **names)
{
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
  for (int t = 0; t < n; t++) SET_STRING_ELT(nm, t, Rf_mkChar(names[t]));
  Rf_setAttrib(out, R_NamesSymbol, nm);
  UNPROTECT(2);
  return out;
}

SEXP fl_r_status_list(int status, const char *name, SEXP value)
{
  const char *names[] = { "status", name };
  SEXP out = PROTECT(fl_r_list(2, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
  SET_VECTOR_ELT(out, 1, value);
  UNPROTECT(1);
  return out;
}

/* dst = the n x d column-major src by rows (d x n column-major). */
static void copy_row_major(const double *src, int n, int d, int threads, double *dst)
{
  (void) threads;
  /* blocks of rows, so a thread writes whole cache lines of dst */
FL_OMP(parallel for num_threads(fl_par_threads(threads, (double) n * d, FL_PAR_MIN_VALUES)) schedule(static))
  for (int lo = 0; lo < n; lo += 64) {
    int hi = n - lo < 64 ? n : lo + 64;
    for (int t = 0; t < d; t++)
      for (int i = lo; i < hi; i++) dst[(size_t) i * d + t] = src[i + (size_t) n * t];
  }
}

double *fl_r_row_major(SEXP X, int threads)
{
  const int n = Rf_nrows(X), d = Rf_ncols(X);
  double *dst = (double *) R_alloc((size_t) n * d + 1, sizeof(double));
  fl_advise_huge(dst, ((size_t) n * d + 1) * sizeof(double));
  copy_row_major(REAL(X), n, d, threads, dst);
  return dst;
}

/* t(X) for a double matrix X, dimnames included, by blocks of rows: t()
 * reads X by rows, element by element. */
SEXP facloc_point_rows(SEXP X, SEXP threads)
{
  const int n = Rf_nrows(X), d = Rf_ncols(X);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, d, n));
  fl_advise_huge(REAL(out), (size_t) n * d * sizeof(double));
  copy_row_major(REAL(X), n, d, Rf_asInteger(threads), REAL(out));
  SEXP dn = Rf_getAttrib(X, R_DimNamesSymbol);
  if (!Rf_isNull(dn)) {
    SEXP tdn = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(tdn, 0, VECTOR_ELT(dn, 1));
    SET_VECTOR_ELT(tdn, 1, VECTOR_ELT(dn, 0));
    SEXP names = Rf_getAttrib(dn, R_NamesSymbol);
    if (!Rf_isNull(names)) {
      SEXP tnames = PROTECT(Rf_allocVector(STRSXP, 2));
      SET_STRING_ELT(tnames, 0, STRING_ELT(names, 1));
      SET_STRING_ELT(tnames, 1, STRING_ELT(names, 0));
      Rf_setAttrib(tdn, R_NamesSymbol, tnames);
      UNPROTECT(1);
    }
    Rf_setAttrib(out, R_DimNamesSymbol, tdn);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}

/* Whether v[0..len-1] are all finite.  v - v is 0 for a finite value and
 * NaN for NA, NaN and +-Inf, so a block's sum is 0 exactly when the block
 * is finite, in any order of summation: the loop vectorises, where
 * R_FINITE() is a function call per value. */
static int all_finite_real(const double *v, R_xlen_t len)
{
  for (R_xlen_t lo = 0; lo < len; lo += FL_FINITE_BLOCK) {
    R_xlen_t hi = len - lo < FL_FINITE_BLOCK ? len : lo + FL_FINITE_BLOCK;
    double nan_if_any = 0.0;
    FL_SIMD_SUM(nan_if_any)
    for (R_xlen_t j = lo; j < hi; j++) nan_if_any += v[j] - v[j];
    if (nan_if_any != 0.0) return 0;
  }
  return 1;
}

/* TRUE when numeric X (double or integer) holds no NA, NaN or infinite
 * value: what is.finite() says, without allocating its answer. */
SEXP facloc_all_finite(SEXP X)
{
  R_xlen_t len = XLENGTH(X);
  if (TYPEOF(X) == INTSXP) {
    const int *v = INTEGER(X);
    for (R_xlen_t j = 0; j < len; j++) if (v[j] == NA_INTEGER) return Rf_ScalarLogical(0);
    return Rf_ScalarLogical(1);
  }
  return Rf_ScalarLogical(all_finite_real(REAL(X), len));
}
