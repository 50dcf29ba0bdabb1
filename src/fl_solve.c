/* Dispatch, the objective and memory estimates. */
#include <stdlib.h>
#include "facloc.h"
#include "fl_state.h"
#include "fl_solvers.h"

static const char *mode_names[FL_MODE_COUNT] = { "g", "c", "dc", "hc", "hpc", "nhpc",
                                                      "stochastic" };

const char *fl_mode_name(fl_mode mode)
{
  return (mode >= 0 && mode < FL_MODE_COUNT) ? mode_names[mode] : "?";
}

static int needs_matrix(fl_mode mode)
{
  return mode == FL_MODE_G || mode == FL_MODE_C || mode == FL_MODE_DC;
}

static int solve_mode(const fl_problem *p, const fl_control *c, fl_result *res)
{
  if (p->cost) return needs_matrix(c->mode) ? fl_solve_budget(p, c, res) : FL_ERR_ARG;
  switch (c->mode) {
  case FL_MODE_G: return fl_solve_g(p, c, res);
  case FL_MODE_C: return fl_solve_c(p, c, res);
  case FL_MODE_DC: return fl_solve_dc(p, c, res);
  case FL_MODE_STOCHASTIC: return fl_solve_stochastic(p, c, res);
  default: return fl_solve_matrix_free(p, c, res);
  }
}

/* For points (s_ij <= 1) no set of facilities covers more than
 * sum_i w_i.  Where gains stay flat over k picks, f(S) plus the k largest
 * gain bounds exceeds it (nhpc on "weak_cluster", n = 12000: 24092
 * against 12000), so every mode's bound is capped by it.  (A given
 * similarity matrix would need a pass over it for its row maxima.)
 * Stochastic greedy reports no bound (Inf). */
double fl_bound_cap(const fl_problem *p)
{
  double cap = 0.0;
  for (int i = 0; i < p->n; i++) cap += p->weight ? p->weight[i] : 1.0;
  return cap;
}

static void cap_bound(const fl_problem *p, const fl_control *c, fl_result *res)
{
  if (!p->x || c->mode == FL_MODE_STOCHASTIC) return;
  double cap = fl_bound_cap(p);
  if (cap < res->bound) res->bound = cap;
  if (res->bound < res->objective) res->bound = res->objective;
}

int fl_solve(const fl_problem *p, const fl_control *c, fl_result *res)
{
  res->nselected = 0;
  res->objective = res->bound = res->evaluations = res->pairs = 0.0;
  res->rounds = 0;
  res->budget_rule = FL_RULE_NONE;
  if (c->k < 1 || c->threads < 1 || p->n < 1 || p->m < 1) return FL_ERR_ARG;
  int status = solve_mode(p, c, res);
  if (status == FL_OK) cap_bound(p, c, res);
  return status;
}

int fl_objective(const fl_problem *p, const int *sel, int nsel, int threads,
                 double *value)
{
  fl_state s;
  if (fl_state_init(&s, p, threads, 0) != FL_OK) return FL_ERR_NOMEM;
  fl_result scratch = { 0 };
  int *idx = malloc(sizeof(int) * (size_t) (nsel > 0 ? nsel : 1));
  double *gain = malloc(sizeof(double) * (size_t) (nsel > 0 ? nsel : 1));
  if (!idx || !gain) {
    free(idx); free(gain); fl_state_free(&s);
    return FL_ERR_NOMEM;
  }
  scratch.selected = idx;
  scratch.gains = gain;
  for (int t = 0; t < nsel; t++) fl_state_select(&s, sel[t], 0.0, &scratch);
  *value = fl_state_objective(&s);
  free(idx); free(gain);
  fl_state_free(&s);
  return FL_OK;
}

double fl_solve_bytes(const fl_problem *p, const fl_control *c)
{
  double n = p->n, m = p->m;
  double base = 8.0 * n + m + 24.0 * m;     /* coverage, chosen, heap entries */
  if (needs_matrix(c->mode) && !p->sim && !p->sp_p) base += fl_matrix_bytes(p);
  if (p->cost) base += fl_budget_bytes(p, c);
  if (c->mode == FL_MODE_STOCHASTIC) base += fl_stochastic_bytes(p, c);
  return base + fl_solve_bytes_matrix_free(p, c);
}
