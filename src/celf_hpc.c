/* Generation 5 (mode hpc): hc plus progressive coverage pruning (clients
 * covered above tau leave the evaluations; their slack stays in the
 * bounds) and barrier fusion: the heap refresh, the merge and one fused
 * post-selection pass (coverage, pruning, summaries) share one parallel
 * region per round, three barriers in all. */
#include "fl_mf.h"
#include "fl_solvers.h"

static void round_hpc(fl_mf *r)
{
FL_OMP(parallel num_threads(fl_mf_team(r)))
  {
    fl_mf_refresh_heaps(r, fl_thread_id(), 0, 1);
FL_OMP(single)
    fl_mf_merge(r);
    fl_mf_post(r, 1, 1);
  }
}

static const fl_mf_config hpc = { .prune = 1, .grouped = 0, .post_many = 0, .round = round_hpc };

int fl_solve_hpc(const fl_problem *p, const fl_control *c, fl_result *res)
{
  return fl_mf_solve(p, c, &hpc, res);
}

double fl_bytes_hpc(const fl_problem *p, const fl_control *c)
{
  return fl_mf_bytes(p, c, &hpc);
}
