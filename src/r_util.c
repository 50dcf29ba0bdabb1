#include <string.h>
#include "r_util.h"

SEXP fl_r_get(SEXP list, const char *name)
{
  SEXP names = Rf_getAttrib(list, R_NamesSymbol);
  for (R_xlen_t t = 0; t < XLENGTH(list); t++)
    if (strcmp(CHAR(STRING_ELT(names, t)), name) == 0) return VECTOR_ELT(list, t);
  return R_NilValue;
}

int fl_r_int(SEXP list, const char *name)
{
  return Rf_asInteger(fl_r_get(list, name));
}

double fl_r_double(SEXP list, const char *name)
{
  return Rf_asReal(fl_r_get(list, name));
}

const double *fl_r_doubles(SEXP list, const char *name)
{
  SEXP v = fl_r_get(list, name);
  if (Rf_isNull(v)) return NULL;
  if (TYPEOF(v) != REALSXP) Rf_error("internal error: '%s' must be double", name);
  return REAL(v);
}

const int *fl_r_ints(SEXP list, const char *name)
{
  SEXP v = fl_r_get(list, name);
  if (Rf_isNull(v)) return NULL;
  if (TYPEOF(v) != INTSXP) Rf_error("internal error: '%s' must be integer", name);
  return INTEGER(v);
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
