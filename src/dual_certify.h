/* The final bound of the exact solvers (dual_certify.c). */
#ifndef FL_CERTIFY_H
#define FL_CERTIFY_H

#include "exact_state.h"
#include "dual.h"

/* Minimise dp (c->certify steps, c's interrupt callback) with oracle o
 * from u0, the coverage of the set; ub0 as for fl_dual_minimise.  Lowers
 * bound_dual and bound_online (by B(u0)), sets dual_steps and dual_trace,
 * adds to bound_evaluations and bound_seconds. */
int fl_certify_dual(fl_dual_problem *dp, fl_dual_oracle *o, const double *u0,
                    const double *ub0, const fl_control *c, fl_result *res);

/* The LP dual from s->cover with c->certify steps, on the similarity of
 * s->p (nothing when it has none: points without a matrix); ub0: upper
 * bounds on every candidate's marginal gain w.r.t. the final set (0 for
 * the chosen), or NULL.  Sets bound_dual, dual_steps and dual_trace,
 * adds to bound_evaluations and bound_seconds. */
int fl_certify(const fl_state *s, const fl_control *c, const double *ub0, fl_result *res);

#endif
