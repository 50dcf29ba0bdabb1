/* One entry point per solver file. */
#ifndef FL_SOLVERS_H
#define FL_SOLVERS_H

#include "facloc.h"

int fl_solve_g(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_solve_c(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_solve_dc(const fl_problem *p, const fl_control *c, fl_result *res);
/* dc from points without its matrix (celf_stream.c), and its working memory */
int fl_solve_dc_stream(const fl_problem *p, const fl_control *c, fl_result *res);
double fl_dc_stream_bytes(const fl_problem *p, const fl_control *c);
/* the matrix-free generations, and their working memory */
int fl_solve_hc(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_solve_hpc(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_solve_nhpc(const fl_problem *p, const fl_control *c, fl_result *res);
double fl_bytes_hc(const fl_problem *p, const fl_control *c);
double fl_bytes_hpc(const fl_problem *p, const fl_control *c);
double fl_bytes_nhpc(const fl_problem *p, const fl_control *c);
/* stochastic greedy (stochastic.c): sampled candidates per step */
int fl_solve_stochastic(const fl_problem *p, const fl_control *c, fl_result *res);
int fl_stochastic_sample_size(int m, int k, double epsilon);
double fl_stochastic_bytes(const fl_problem *p, const fl_control *c);
/* any exact mode under a budget (budget.c) */
int fl_solve_budget(const fl_problem *p, const fl_control *c, fl_result *res);
double fl_budget_bytes(const fl_problem *p, const fl_control *c);

#endif
