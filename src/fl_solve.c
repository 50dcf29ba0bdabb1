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

int fl_solve(const fl_problem *p, const fl_control *c, fl_result *res)
{
  res->nselected = 0;
  res->objective = res->bound = res->evaluations = res->pairs = 0.0;
  res->rounds = 0;
  res->budget_rule = FL_RULE_NONE;
  if (c->k < 1 || c->threads < 1 || p->n < 1 || p->m < 1) return FL_ERR_ARG;
  if (p->cost) return needs_matrix(c->mode) ? fl_solve_budget(p, c, res) : FL_ERR_ARG;
  switch (c->mode) {
  case FL_MODE_G: return fl_solve_g(p, c, res);
  case FL_MODE_C: return fl_solve_c(p, c, res);
  case FL_MODE_DC: return fl_solve_dc(p, c, res);
  case FL_MODE_STOCHASTIC: return fl_solve_stochastic(p, c, res);
  default: return fl_solve_matrix_free(p, c, res);
  }
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
