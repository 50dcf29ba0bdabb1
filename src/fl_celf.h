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
/* Fill objective, bound (the smaller of bound0 and f(S) + the k largest keys
 * left in the heaps, all upper bounds), evaluations, pairs and rounds. */
void fl_celf_finish(fl_state *s, fl_heap **heaps, int nheaps, double bound0,
                    int k, fl_result *res);
/* Sum of the k largest keys of a set of entries; a valid bound term even if
 * scratch memory is short, by falling back to the sum of all keys. */
double fl_celf_topk(fl_heap **heaps, int nheaps, int k);

#endif
