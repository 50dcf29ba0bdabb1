/* Pieces shared by the CELF solvers: initial gains, the bound, results. */
#ifndef CELF_COMMON_H
#define CELF_COMMON_H

#include "exact_state.h"
#include "celf_heap.h"

/* Exact gains of every open candidate against the starting coverage, in
 * candidate order, tagged round 0 (parallel).  Returns how many. */
int fl_celf_initial_gains(fl_state *s, fl_entry *entries);
/* Sum of the k largest keys of the heaps and of *extra (a popped entry, or
 * NULL); keys: scratch for m values. */
double fl_celf_topk(fl_heap **heaps, int nheaps, const fl_entry *extra, int k, double *keys);
/* The online bound of Leskovec et al. (2007) after t picks: every key is
 * an upper bound on its gain w.r.t. S_t (stale ones by submodularity), so
 * f(S_t) + the k largest keys bounds the optimum; recorded by fl_trace. */
void fl_celf_round(const fl_state *s, fl_heap **heaps, int nheaps, const fl_entry *extra,
                   int k, int t, double *keys, fl_result *res);
/* Whether a solve for k picks takes round t's online bound (every
 * round up to FL_TRACE_ROUNDS picks; beyond, every ceil(k /
 * FL_TRACE_ROUNDS)-th): the rounds between keep the bound known. */
int fl_celf_traced(int t, int k);
/* Fill objective, evaluations, pairs and rounds; after a complete solve
 * (status FL_OK) also the last round's bound and the LP dual of
 * fl_certify, from the keys left in the heaps: its first evaluation
 * refreshes the stale tops until the k largest keys are exact gains, as
 * CELF would.  Returns the status. */
int fl_celf_finish(fl_state *s, fl_heap **heaps, int nheaps, const fl_control *c,
                   double *keys, int status, fl_result *res);

#endif
