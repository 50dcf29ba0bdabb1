/* Dispatch, the objective and memory estimates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "facloc.h"
#include "exact_state.h"
#include "fl_solvers.h"
#include "dual.h"

/* The modes, by fl_mode: the one list of them (R reads the names and
 * kinds through facloc_modes()).  bytes: working memory beyond the
 * coverage, heap entries and, for the exact modes, the matrix. */
typedef struct {
  const char *name, *kind;
  int (*solve)(const fl_problem *p, const fl_control *c, fl_result *res);
  double (*bytes)(const fl_problem *p, const fl_control *c);
} fl_mode_info;

static const fl_mode_info modes[FL_MODE_COUNT] = {
  [FL_MODE_G] = { "g", "exact", fl_solve_g, NULL },
  [FL_MODE_C] = { "c", "exact", fl_solve_c, NULL },
  [FL_MODE_DC] = { "dc", "exact", fl_solve_dc, NULL },
  [FL_MODE_HC] = { "hc", "matrix-free", fl_solve_hc, fl_bytes_hc },
  [FL_MODE_HPC] = { "hpc", "matrix-free", fl_solve_hpc, fl_bytes_hpc },
  [FL_MODE_NHPC] = { "nhpc", "matrix-free", fl_solve_nhpc, fl_bytes_nhpc },
  [FL_MODE_STOCHASTIC] = { "stochastic", "sampled", fl_solve_stochastic, fl_stochastic_bytes },
};

const char *fl_mode_name(fl_mode mode)
{
  return (mode >= 0 && mode < FL_MODE_COUNT) ? modes[mode].name : "?";
}

const char *fl_mode_kind(fl_mode mode)
{
  return (mode >= 0 && mode < FL_MODE_COUNT) ? modes[mode].kind : "?";
}

int fl_mode_lookup(const char *name)
{
  for (int m = 0; m < FL_MODE_COUNT; m++)
    if (strcmp(name, modes[m].name) == 0) return m;
  return -1;
}

static int needs_matrix(fl_mode mode)
{
  return strcmp(modes[mode].kind, "exact") == 0;
}

/* Does mode dc compute its gains from the points (celf_stream.c)? */
static int streamed(const fl_problem *p, const fl_control *c)
{
  return c->stream && c->mode == FL_MODE_DC && !fl_held(p) && !p->cost;
}

/* Does the solve hold its matrix in single precision (exact_state.h)? */
static int single_matrix(const fl_problem *p, const fl_control *c)
{
  return c->single && needs_matrix(c->mode) && !fl_held(p) && !streamed(p, c);
}

static int solve_mode(const fl_problem *p, const fl_control *c, fl_result *res)
{
  if (c->mode < 0 || c->mode >= FL_MODE_COUNT) return FL_ERR_ARG;
  if (streamed(p, c)) return fl_solve_dc_stream(p, c, res);
  if (p->cost) return needs_matrix(c->mode) ? fl_solve_budget(p, c, res) : FL_ERR_ARG;
  return modes[c->mode].solve(p, c, res);
}

/* bound: the smallest of the solver's own (matrix-free modes), the
 * online and the LP-dual bounds, and, for points, the cap; never below
 * f(S).  Stochastic greedy on points has only the cap. */
static void final_bound(const fl_problem *p, fl_result *res)
{
  double b = res->bound;
  if (res->bound_online < b) b = res->bound_online;
  if (res->bound_dual < b) b = res->bound_dual;
  if (p->x && !p->sim && !p->sp_p) {
    double cap = fl_bound_cap(p);
    if (cap < b) b = cap;
  }
  res->bound = b < res->objective ? res->objective : b;
}

/* f(S_t) from the gains, and the final bound as the trace's last entry. */
static void finish_trace(fl_result *res)
{
  double f = res->objective;
  for (int t = 0; t < res->nselected; t++) f -= res->gains[t];
  if (res->trace_objective) {
    res->trace_objective[0] = f;
    for (int t = 0; t < res->nselected; t++)
      res->trace_objective[t + 1] = res->trace_objective[t] + res->gains[t];
  }
  if (!res->trace_bound) return;
  /* the best bound known after t picks: one made earlier still holds */
  res->trace_bound[res->nselected] = res->bound;
  for (int t = 1; t <= res->nselected; t++)
    if (res->trace_bound[t - 1] < res->trace_bound[t]) res->trace_bound[t] = res->trace_bound[t - 1];
}

int fl_solve(const fl_problem *p, const fl_control *c, fl_result *res)
{
  res->nselected = 0;
  res->objective = res->evaluations = res->pairs = 0.0;
  res->bound = res->bound_online = res->bound_dual = INFINITY;
  res->bound_evaluations = res->bound_seconds = 0.0;
  res->dual_steps = 0;
  res->rounds = 0;
  res->budget_rule = FL_RULE_NONE;
  if (c->k < 1 || c->threads < 1 || p->n < 1 || p->m < 1 || c->certify < 0) return FL_ERR_ARG;
  if (res->trace_bound)
    for (int t = 0; t <= c->k; t++) res->trace_bound[t] = INFINITY;
  int status = solve_mode(p, c, res);
  if (status == FL_OK && single_matrix(p, c))   /* f(S) as a double matrix gives it */
    status = fl_objective_tiled(p, res->selected, res->nselected, c->threads, &res->objective);
  if (status == FL_OK) {
    final_bound(p, res);
    finish_trace(res);
  }
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
  if (streamed(p, c)) return base + fl_dc_stream_bytes(p, c);
  if (needs_matrix(c->mode) && !fl_held(p)) base += fl_matrix_bytes(p, c->single);
  if (needs_matrix(c->mode) && !p->sp_p) base += fl_live_bytes(p, single_matrix(p, c), c->threads);
  if (single_matrix(p, c))    /* fl_objective_tiled()'s similarities */
    base += fl_objective_tiled_bytes(p, c->k, c->threads);
  if (p->cost) base += fl_budget_bytes(p, c);
  if (c->mode >= 0 && c->mode < FL_MODE_COUNT && modes[c->mode].bytes)
    base += modes[c->mode].bytes(p, c);
  /* the LP dual: the exact modes' always (their final refresh), the
   * others' with steps to take */
  if (c->certify > 0 || needs_matrix(c->mode)) base += fl_dual_bytes(p);
  return base;
}
