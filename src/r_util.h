/* Helpers for the .Call glue (R API, main thread only). */
#ifndef FL_R_UTIL_H
#define FL_R_UTIL_H

#include <R.h>
#include <Rinternals.h>

/* The R-to-C contract: the .Call glue reads the named lists R builds (the
 * problem, the control, ...) field by field, and a field that is not there
 * is an R error naming it and the list, raised before anything is solved.
 * A field that may be left out is read with fl_r_optional(), which says so.
 * A field whose value may be NULL must still be in the list (list(y = NULL)
 * keeps it; `l$y <- NULL` drops it). */
typedef struct {
  SEXP list;
  const char *what;   /* the list's name in errors: "problem", "control" */
} fl_r_args;

/* a, after checking that list is a named list. */
fl_r_args fl_r_args_of(SEXP list, const char *what);
/* Field name of the list, an error when the list has none. */
SEXP fl_r_get(fl_r_args a, const char *name);
/* Field name, R_UnboundValue when absent: for fields that are optional. */
SEXP fl_r_optional(fl_r_args a, const char *name);
/* One number (or logical) as int / double / logical, an error otherwise. */
int fl_r_int(fl_r_args a, const char *name);
double fl_r_double(fl_r_args a, const char *name);
int fl_r_lgl(fl_r_args a, const char *name);
/* The first string of the field, "" when it has none. */
const char *fl_r_string(fl_r_args a, const char *name);
/* A double (integer) vector's values, NULL when the field is NULL. */
const double *fl_r_doubles(fl_r_args a, const char *name);
const int *fl_r_ints(fl_r_args a, const char *name);

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
