/* Generation 1 (mode g): plain greedy on the precomputed similarity matrix.
 * Each round evaluates every open candidate; threads split the candidates.
 * The exact gains of a round also give the round's bound
 * f(S) + sum of the k largest gains (fl_trace keeps the smallest), and
 * the last round's gains bound the final ones for the LP dual. */
#include <math.h>
#include <stdlib.h>
#include "exact_state.h"
#include "dual_certify.h"
#include "fl_omp.h"
#include "fl_tune.h"

int fl_solve_g(const fl_problem *p, const fl_control *c, fl_result *res)
{
  fl_state s;
  if (fl_state_init(&s, p, c->threads, fl_matrix_of(c)) != FL_OK) return FL_ERR_NOMEM;
  double *gain = malloc((size_t) p->m * sizeof(double));
  double *open = malloc((size_t) p->m * sizeof(double));
  if (!gain || !open) {
    free(gain); free(open); fl_state_free(&s);
    return FL_ERR_NOMEM;
  }
  int status = FL_OK;
  for (int j = 0; j < p->m; j++) gain[j] = INFINITY;
  /* A round evaluates every candidate: a tiny problem starts no team. */
  int team = fl_par_threads(c->threads, (double) p->m * fl_gain_pairs(p), FL_PAR_MIN_PAIRS);
  (void) team;
  for (int round = 0; round < c->k; round++) {
    if (fl_interrupted(c)) { status = FL_INTERRUPTED; break; }
FL_OMP(parallel for num_threads(team) schedule(static))
    for (int j = 0; j < p->m; j++)
      gain[j] = s.chosen[j] ? -1.0 : fl_state_gain(&s, j);
    int best = -1, nopen = 0;
    for (int j = 0; j < p->m; j++) {
      if (s.chosen[j]) continue;
      s.evaluations++;
      open[nopen++] = gain[j];
      if (best < 0 || gain[j] > gain[best]) best = j;
    }
    if (best < 0) break;
    double f = fl_state_objective(&s);
    int reached = fl_reached(c, f);   /* then bound sets of the size selected */
    fl_trace(res, round, f + fl_topk_sum(open, nopen, reached ? res->nselected : c->k));
    if (reached) break;
    fl_state_select(&s, best, gain[best], res);
    fl_progress(c, round + 1, res->nselected, f + gain[best]);
  }
  res->rounds = res->nselected;
  res->objective = fl_state_objective(&s);
  res->evaluations = s.evaluations;
  res->pairs = s.pairs;
  if (status == FL_OK) {
    for (int j = 0; j < p->m; j++) if (s.chosen[j]) gain[j] = 0.0;
    status = fl_certify(&s, c, gain, res);
  }
  free(gain); free(open);
  fl_state_free(&s);
  return status;
}
