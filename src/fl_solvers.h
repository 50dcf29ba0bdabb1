/* One entry point per solver file. */
#ifndef FL_SOLVERS_H
#define FL_SOLVERS_H

#include "facloc.h"

int fl_solve_g(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_solve_c(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_solve_dc(const fl_problem *p, const fl_control *c, fl_result *res);
/* hc, hpc, nhpc */
int fl_solve_matrix_free(const fl_problem *p, const fl_control *c, fl_result *res);
/* Extra working memory of the matrix-free modes (0 for the others). */
double fl_solve_bytes_matrix_free(const fl_problem *p, const fl_control *c);
/* The cap fl_solve() puts on the bound of points' problems: the clients'
 * total weight, which no f(S) exceeds. */
double fl_bound_cap(const fl_problem *p);
/* stochastic greedy (stochastic.c): sampled candidates per step */
int fl_solve_stochastic(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_stochastic_sample_size(int m, int k, double epsilon);
double fl_stochastic_bytes(const fl_problem *p, const fl_control *c);
/* any exact mode under a budget (budget.c) */
int fl_solve_budget(const fl_problem *p, const fl_control *c, fl_result *res);
double fl_budget_bytes(const fl_problem *p, const fl_control *c);

#endif
