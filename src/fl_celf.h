/* Pieces shared by the CELF solvers: initial gains, the bound, results. */
#ifndef FL_CELF_H
#define FL_CELF_H

#include "fl_state.h"
#include "fl_heap.h"

/* Exact gains of every open candidate against the starting coverage, in
 * candidate order, tagged round 0 (parallel).  Returns how many. */
int fl_celf_initial_gains(fl_state *s, fl_entry *entries);
/* f(start) + the k largest initial gains. */
double fl_celf_bound_initial(const fl_state *s, const fl_entry *entries, int count, int k);
/* Evaluate h's stale tops against the final coverage, tagging them round
 * `fresh`, until its k largest keys are such gains: then they are the k
 * largest marginal gains, whichever keys the solve left.  Mode c needs
 * it: its threads race for the tops, so which of them a round evaluated
 * beyond the winner, and hence the keys left, vary from run to run. */
void fl_celf_refresh_tops(fl_state *s, fl_heap *h, int k, int fresh);
/* Fill objective, bound (the smaller of bound0 and f(S) + the k largest keys
 * left in the heaps, all upper bounds), evaluations, pairs and rounds. */
void fl_celf_finish(fl_state *s, fl_heap **heaps, int nheaps, double bound0,
                    int k, fl_result *res);
/* Sum of the k largest keys of a set of entries; a valid bound term even if
 * scratch memory is short, by falling back to the sum of all keys. */
double fl_celf_topk(fl_heap **heaps, int nheaps, int k);

#endif
