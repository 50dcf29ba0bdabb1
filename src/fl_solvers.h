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

#endif
