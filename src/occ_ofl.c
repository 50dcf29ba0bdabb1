/* Online facility location (Meyerson, 2001) with facility cost lambda^2 and
 * squared-distance service cost, serial and OCC.  Point i opens a facility
 * at itself when u_i < D_i^2 / lambda^2, D_i its distance to the nearest
 * open facility and u_i its own fixed uniform; otherwise it is served by
 * that facility.  Validation re-decides with the facilities accepted since
 * the epoch's start: D can only shrink, so non-proposers would not have
 * opened either, and the OCC pass equals the serial pass.  One pass. */
#include <stdlib.h>
#include <string.h>
#include "occ_common.h"

typedef struct {
  occ_assign a;
  const double *u;
  double *cost;         /* per point: service cost when it was visited */
  int *facility;        /* point index of each facility */
  int nfac, capfac;
} ofl_state;

/* A point with no facility to serve it (none yet, or every distance
 * overflowed) opens one: u < D^2 / lambda^2 alone would leave it in
 * cluster -1 when D^2 / lambda^2 is Inf / Inf. */
static int ofl_propose(void *ptr, int i, int slot)
{
  ofl_state *st = ptr;
  occ_assign_old(&st->a, i, slot);
  st->cost[i] = st->a.sd[slot];
  return st->a.z[i] < 0 || st->u[i] < st->a.sd[slot] / st->a.lambda2;
}

static int ofl_validate(void *ptr, int i, int slot)
{
  ofl_state *st = ptr;
  double dist = occ_assign_new(&st->a, i, slot);
  st->cost[i] = dist;
  if (st->a.z[i] >= 0 && !(st->u[i] < dist / st->a.lambda2)) return 0;
  if (occ_assign_open(&st->a, i) ||
      occ_grow((void **) &st->facility, &st->capfac, st->nfac + 1, sizeof(int)))
    return -1;
  st->facility[st->nfac++] = i;
  st->cost[i] = 0.0;
  return 1;
}

static void ofl_sum_cost(void *ctx, int lo, int hi, double *out)
{
  const double *cost = ctx;
  double s = out[0];
  for (int i = lo; i < hi; i++) s += cost[i];
  out[0] = s;
}

static int ofl_end_pass(void *ptr, const occ_setup *s, double *objective,
                        int *changed)
{
  ofl_state *st = ptr;
  double service = 0.0;
  int status = occ_shard_sum(s, ofl_sum_cost, st->cost, 1, &service);
  *objective = service + st->a.lambda2 * st->a.c.k;
  *changed = 0;   /* online: a single pass */
  return status;
}

int occ_ofl(const occ_setup *s, double lambda, const double *u, int *cluster,
            double *cost, occ_centers *centers, int **facility, occ_trace *tr)
{
  ofl_state st;
  memset(tr, 0, sizeof *tr);
  memset(&st, 0, sizeof st);
  int status = occ_assign_init(&st.a, s, lambda);
  if (status) return status;
  st.u = u;
  st.cost = cost;
  occ_alg alg = { &st, sizeof(double), occ_assign_begin, ofl_propose, ofl_validate,
                  ofl_end_pass };
  status = occ_assign_run(s, &alg, &st.a, tr, cluster, centers);
  if (status == FL_OK) *facility = st.facility;
  else free(st.facility);
  return status;
}

/* Distributed steps (see occ_dpmeans.c): a worker's block holds its rows'
 * uniforms u and service costs; validation gets the proposals' own. */
static ofl_state block_state(const double *x, int d, int m, double lambda,
                             const double *centers, int k, int *z, double *sd,
                             const double *u, double *cost)
{
  ofl_state st;
  memset(&st, 0, sizeof st);
  st.a = occ_assign_view(x, d, m, lambda, centers, k, z, sd);
  st.u = u;
  st.cost = cost;
  return st;
}

void occ_ofl_propose_rows(const double *x, int d, int m, int lo, int hi,
                          const double *centers, int k, double lambda,
                          const double *u, double *cost, int threads, int *z,
                          double *sd, char *flag)
{
  ofl_state st = block_state(x, d, m, lambda, centers, k, z, sd, u, cost);
  occ_propose_rows(ofl_propose, &st, lo, hi, occ_assign_begin(&st.a), threads, flag);
}

int occ_ofl_validate_list(const double *xp, int np, int d, double lambda,
                          const double *u, double *cost, occ_centers *c, int *z,
                          double *sd, int *accepted)
{
  ofl_state st = block_state(xp, d, np, lambda, c->v, c->k, z, sd, u, cost);
  st.a.c = *c;
  int status = occ_validate_list(ofl_validate, &st, np, accepted);
  *c = st.a.c;
  free(st.facility);
  return status;
}

void occ_ofl_catch_up_rows(const double *x, int d, int m, int lo, int hi,
                           const double *centers, int kfix, double lambda,
                           const double *u, double *cost, int *z, double *sd,
                           const int *outcome, int before)
{
  ofl_state st = block_state(x, d, m, lambda, centers, kfix, z, sd, u, cost);
  occ_catch_up_rows(ofl_validate, occ_assign_limit, &st, lo, hi, outcome, kfix, before);
}

double occ_ofl_block_cost(const double *cost, int m)
{
  double s = 0.0;
  ofl_sum_cost((void *) cost, 0, m, &s);
  return s;
}
