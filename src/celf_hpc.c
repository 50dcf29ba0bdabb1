/* Generation 5 (mode hpc): hc plus progressive coverage pruning (clients
 * covered above tau leave the evaluations; their slack stays in the
 * bounds) and barrier fusion: the heap refresh, the merge and one fused
 * post-selection pass (coverage, pruning, summaries) share one parallel
 * region per round, three barriers in all. */
#include "mf.h"
#include "fl_solvers.h"

/* One round, in one parallel region:
 *   every thread refreshes its own heaps (fl_mf_team_refresh; with
 *   several heaps, two phases, the team meeting between them);
 *   barrier: every heap's fresh entries are in;
 *   one thread merges and commits the picks (fl_mf_merge) and readies
 *   the post pass; the end of the single is the barrier;
 *   the fused post pass: coverage, pruning and summaries, chunk by chunk
 *   (fl_mf_post); the region's end is the last barrier. */
static void round_hpc(fl_mf *r)
{
FL_OMP(parallel num_threads(fl_mf_team(r)))
  {
    fl_mf_team_refresh(r, fl_thread_id(), 0, 1);
FL_OMP(barrier)
FL_OMP(single)
    {
      fl_mf_merge(r);
      fl_mf_post_start(r);
    }
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
