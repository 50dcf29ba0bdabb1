/* Helpers for the .Call glue (R API, main thread only). */
#ifndef FL_R_UTIL_H
#define FL_R_UTIL_H

#include <R.h>
#include <Rinternals.h>

/* Element of a named list, R_NilValue when absent. */
SEXP fl_r_get(SEXP list, const char *name);
int fl_r_int(SEXP list, const char *name);
const char *fl_r_string(SEXP list, const char *name);
double fl_r_double(SEXP list, const char *name);
/* Pointer to a double vector element, NULL when absent or NULL. */
const double *fl_r_doubles(SEXP list, const char *name);
const int *fl_r_ints(SEXP list, const char *name);

/* Interrupt callback for the core: checks for a pending user interrupt
 * without jumping out of C, so the core can free its memory first. */
int fl_r_interrupted(void *ctx);

/* Named list builder. */
SEXP fl_r_list(int n, const char **names);
/* list(status = status, <name> = value); value must be protected by the
 * caller, whose count the helper leaves as it found it. */
SEXP fl_r_status_list(int status, const char *name, SEXP value);

/* Row-major copy (each point contiguous, as the core reads points) of the
 * n x d double matrix X, made by `threads` threads; R_alloc'd, so freed
 * when the .Call returns or raises an error. */
double *fl_r_row_major(SEXP X, int threads);

#endif
