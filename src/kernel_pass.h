/* One exhaustive pass of initial gains (the speed reference of issue 9). */
#ifndef FL_PASS_H
#define FL_PASS_H

#include "facloc.h"

/* gain[j] = sum_i w_i s_ij for every candidate j, empty coverage. */
int fl_pass_gains(const fl_problem *p, int threads, double *gain);

#endif
