/* Where the exact modes' LP dual starts (dual_start.c). */
#ifndef FL_DUAL_START_H
#define FL_DUAL_START_H

#include "facloc.h"
#include "dual.h"

/* The coverage of a prefix of the nsel picks sel (p's candidates), from
 * dp->lo, where B is below b_final (B at the final coverage), the lowest
 * found: *u (n values) and *ub (m values: c_j there, exact; 0 for the
 * skipped), both new, or both NULL where no prefix tried is lower.
 * Counts its evaluations in o.  Returns an FL_* status. */
int fl_dual_prefix_start(const fl_dual_problem *dp, fl_dual_oracle *o, const fl_problem *p,
                         const int *sel, int nsel, double b_final, int threads, double **u,
                         double **ub);

#endif
