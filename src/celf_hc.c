/* Generation 4 (mode hc): hierarchical CELF without W.  Per-thread heaps
 * (a few per thread, taken in turn), each refreshed by one thread against
 * the cluster bounds; the round's picks are merged serially, then the
 * coverage update and the cluster summary refresh run as two separate
 * parallel passes. */
#include "fl_mf.h"
#include "fl_omp.h"

void fl_round_hc(fl_mf *r)
{
  int threads = r->c->threads;
FL_OMP(parallel num_threads(threads))
  fl_mf_refresh_heaps(r, fl_thread_id(), 0, 1);
  fl_mf_merge(r);
FL_OMP(parallel num_threads(threads))
  fl_mf_post(r, 1, 0);
FL_OMP(parallel num_threads(threads))
  fl_mf_post(r, 0, 1);
  (void) threads;
}
