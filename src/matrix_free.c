/* Generations 4-6 (modes hc, hpc, nhpc).  Placeholder until the matrix-free
 * solvers land: reports an argument error so nothing silently runs. */
#include "fl_solvers.h"

int fl_solve_matrix_free(const fl_problem *p, const fl_control *c, fl_result *res)
{
  (void) p; (void) c; (void) res;
  return FL_ERR_ARG;
}

double fl_solve_bytes_matrix_free(const fl_problem *p, const fl_control *c)
{
  (void) p; (void) c;
  return 0.0;
}
