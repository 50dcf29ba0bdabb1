/* One exhaustive pass: every candidate's gain against empty coverage, with
 * the package kernel.  What a solver that prunes nothing pays at least once;
 * facility_pass_time() divides the solvers' times by it. */
#include <stdlib.h>
#include "fl_pass.h"
#include "fl_state.h"
#include "fl_omp.h"

int fl_pass_gains(const fl_problem *p, int threads, double *gain)
{
  double *cover = calloc((size_t) p->n, sizeof(double));
  if (!cover) return FL_ERR_NOMEM;
FL_OMP(parallel for num_threads(threads) schedule(dynamic, 16))
  for (int j = 0; j < p->m; j++) gain[j] = fl_gain(p, j, cover);
  (void) threads;
  free(cover);
  return FL_OK;
}
