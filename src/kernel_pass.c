/* One exhaustive pass: every candidate's gain against empty coverage, with
 * the package kernel.  What a solver that prunes nothing pays at least once;
 * facility_pass_time() divides the solvers' times by it.  Points go through
 * the tiled kernel (fl_tiles_block), a block of candidates per task, its
 * gains summed client by client as fl_gain() sums them on the exact modes'
 * matrix, so they are the bits of those modes' first gains. */
#include <stdlib.h>
#include "kernel_pass.h"
#include "kernel.h"
#include "exact_state.h"
#include "fl_omp.h"
#include "fl_tune.h"

/* gain[j0 + a] of the block's mc candidates, tile by tile. */
static void pass_block(const fl_problem *p, const fl_tiles *t, int j0, int mc, double *yp,
                       double *tile, double *gain)
{
  const double *w = p->weight;
  for (int a = 0; a < mc; a++) gain[j0 + a] = 0.0;
  fl_tiles_pack(t, p, j0, mc, yp);
  for (int i0 = 0; i0 < p->n; i0 += FL_TILE_CLIENTS) {
    int nc = p->n - i0 < FL_TILE_CLIENTS ? p->n - i0 : FL_TILE_CLIENTS;
    fl_tiles_block(t, p, j0, mc, yp, tile, FL_TILE_CLIENTS, i0, nc);
    for (int a = 0; a < mc; a++) {
      const double *s = tile + (size_t) a * FL_TILE_CLIENTS;
      double g = gain[j0 + a];
      for (int i = 0; i < nc; i++)
        if (s[i] > 0) g += w ? w[i0 + i] * s[i] : s[i];
      gain[j0 + a] = g;
    }
  }
}

static int pass_tiled(const fl_problem *p, int threads, double *gain)
{
  fl_tiles t;
  if (fl_tiles_init(&t, p, threads, 0) != FL_OK) return FL_ERR_NOMEM;
  int team = fl_team(threads);
  int mc = fl_tile_candidates_for(p->d, p->m, team), nb = (p->m + mc - 1) / mc, status = FL_OK;
FL_OMP(parallel num_threads(team))
  {
    double *tile = malloc(sizeof(double) * (size_t) mc * FL_TILE_CLIENTS);
    double *yp = malloc(sizeof(double) * fl_tile_packed(mc, p->d));
    if (!tile || !yp) {
FL_OMP(atomic write)
      status = FL_ERR_NOMEM;
    }
FL_OMP(for schedule(dynamic, 1))
    for (int b = 0; b < nb; b++)
      if (tile && yp)
        pass_block(p, &t, b * mc, p->m - b * mc < mc ? p->m - b * mc : mc, yp, tile, gain);
    free(tile);
    free(yp);
  }
  fl_tiles_free(&t);
  return status;
}

int fl_pass_gains(const fl_problem *p, int threads, double *gain)
{
  if (!p->sim && !p->sp_p) return pass_tiled(p, threads, gain);
  double *cover = calloc((size_t) p->n, sizeof(double));
  if (!cover) return FL_ERR_NOMEM;
FL_OMP(parallel for num_threads(fl_team(threads)) schedule(dynamic, 16))
  for (int j = 0; j < p->m; j++) gain[j] = fl_gain(p, j, cover);
  (void) threads;
  free(cover);
  return FL_OK;
}
