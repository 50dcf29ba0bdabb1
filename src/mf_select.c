/* The end of a round: its picks committed from the heaps' fresh entries
 * (fl_mf_merge), then the post-selection pass (fl_mf_post): coverage,
 * each pick's true marginal gain, pruning and cluster summaries. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"

/* Upper bound on how much picks 0..npick-1 of the round (reaches
 * r->hwpick) can lower the gain of a candidate with reaches hw: a client
 * loses at most min(s_ic, s_ip) - m_i to pick p. */
static double overlap_bound(const fl_mf *r, const double *hw)
{
  const fl_clusters *cl = &r->cl;
  double loss = 0.0;
  for (int q = 0; q < r->npick; q++) {
    const double *hp = r->hwpick + (size_t) q * cl->K;
    for (int k = 0; k < cl->K; k++) {
      double reach = hw[k] < hp[k] ? hw[k] : hp[k];
      if (reach > cl->minact[k]) loss += cl->wact[k] * (reach - cl->minact[k]);
      if (reach > cl->minpr[k]) loss += cl->wpr[k] * (reach - cl->minpr[k]);
    }
  }
  return loss;
}

/* Entry e's gain from a fine evaluation, by the calling thread alone
 * (heap 0's scratch: no heap is being refreshed). */
static fl_entry fine_entry(fl_mf *r, fl_entry e)
{
  fl_mf_heap *s = &r->hs[0];
  int tid = fl_thread_id();
  s->pending[0] = e;
  s->fine[0] = 1;
  s->npend = 1;
  fl_mf_eval_alone(r, s, tid);
  r->tcount[(size_t) tid * FL_MF_PAD + 1] += 1;
  return fl_mf_evaluated(r, s, 0, r->round);
}

/* The post-selection pass's work before each chunk: its active clients
 * and one for its summary, read by fl_mf_post to cut the chunk ids
 * between pairs of threads. */
static void post_cuts(fl_mf *r)
{
  double at = 0.0;
  r->post_work[0] = 0.0;
  for (int ch = 0; ch < r->cl.nchunks; ch++) {
    at += r->cl.chunk[ch].nact + 1.0;
    r->post_work[ch + 1] = at;
  }
}

/* The first chunk before which lies fraction f of the post pass's work. */
static int post_cut(const fl_mf *r, double f)
{
  int nch = r->cl.nchunks, lo = 0, hi = nch;
  if (f >= 1.0) return nch;
  double want = f * r->post_work[nch];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (r->post_work[mid] < want) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Could the pruned clients, which the round's evaluations left out, add
 * more than FL_PRUNE_SHARE eps of a pick's gain to some candidate's?
 * Only then may they change the pick (the bound of FL_PRUNE_SHARE). */
static int pruned_too_much(const fl_mf *r, double gain)
{
  return r->cl.prune && r->cl.pruned > FL_PRUNE_SHARE * r->c->eps * gain;
}

/* The pruned clients return to the evaluations.  A key evaluated without
 * them is at most their slack below the candidate's gain, so every key
 * grows by that slack, counts as stale, and the round runs again. */
static void readmit_pruned(fl_mf *r)
{
  double slack = r->cl.pruned * (1.0 + FL_UB_SLACK);
  fl_clusters_readmit(&r->cl);
  fl_mf_stale_keys(r, slack, 0);
  r->again = 1;
}

/* Commit pooled entries in order while the gain each was evaluated with
 * can have dropped by at most eps of it through the round's earlier picks
 * (with eps = 0: not at all, so the order is exactly greedy's); the rest
 * go back to their heaps, to be re-evaluated next round.  The overlap
 * bound is loose in high dimension, so rounds rarely take a second
 * pick; without the test (the specification's batches) later picks of a
 * round can lie close to its first and f(S) falls far below greedy's. */
void fl_mf_merge(fl_mf *r)
{
  int nm = fl_mf_pool_fresh(r), K = r->cl.K;
  int room = r->k - r->nselected, q = 0;
  r->npick = 0;
  r->again = 0;
  int readmit = 0, rekey = 0;
  for (; q < nm && r->npick < r->batch && r->npick < room; q++) {
    int j = r->merged[q].idx;
    double *hw = r->hwpick + (size_t) r->npick * K;
    fl_cand *pc = &r->pcand[r->npick];
    fl_clusters_offset(&r->cl, r->cl.y + (size_t) j * r->cl.d, r->pyo + (size_t) r->npick * r->cl.d,
                       pc);
    fl_clusters_reach(&r->cl, pc, hw, r->distpick);
    if (r->npick > 0 && overlap_bound(r, hw) > r->c->eps * r->merged[q].key) break;
    if (r->refine && r->fine_round[j] != r->round) {
      /* a coarse gain: evaluated finely, it must still come before the
       * next entry (else it goes back, and without a pick the round runs
       * again) */
      r->merged[q] = fine_entry(r, r->merged[q]);
      if (q + 1 < nm && fl_entry_before(r->merged[q + 1], r->merged[q])) {
        r->again = r->npick == 0;
        break;
      }
    }
    if (pruned_too_much(r, r->merged[q].key)) {
      readmit = r->npick == 0;
      break;
    }
    fl_verdict verdict = r->refine ? fl_mf_contest(r, q, nm) : FL_COMMIT;
    if (verdict != FL_COMMIT) {
      rekey = verdict == FL_ZERO_GAIN_PICK;
      r->again = r->npick == 0;
      break;
    }
    r->pick[r->npick++] = j;
    r->chosen[j] = 1;
  }
  for (; q < nm; q++) {   /* back to their heaps, coarse gains keyed up again */
    fl_entry e = r->merged[q];
    if (r->refine && r->fine_round[e.idx] != r->round) e.key *= 1.0 + FL_TIE;
    fl_heap_push(&r->heaps[r->from[q]], e);
  }
  if (readmit) readmit_pruned(r);
  if (rekey) fl_mf_rekey_from_bounds(r);
  fl_clusters_skip_table(&r->cl, r->hwpick, r->npick, r->skip);
}

static double post_chunk(fl_mf *r, int ch, int cover, int summary, int tid)
{
  return fl_clusters_post_chunk(&r->cl, ch, r->pcand, r->npick, r->skip,
                                r->part + (size_t) ch * r->batch, cover, summary, tid);
}

void fl_mf_post_start(fl_mf *r)
{
  fl_claims_reset(r, 0, r->c->threads);
  post_cuts(r);
}

/* The post-selection pass over the chunks, shared by the team as a
 * group's lanes share an evaluation: pairs of threads take runs of chunk
 * ids cut by their work, the two threads of a pair from the run's two
 * ends (fl_claim, on the pair's counters, which fl_mf_post_start zeroes), as
 * nhpc's front and back lanes walk them in walk_chunks, so the coverage
 * and clients each thread writes here are mostly those it reads next, in
 * its own caches. */
void fl_mf_post(fl_mf *r, int cover, int summary)
{
  int tid = fl_thread_id(), T = fl_team_size(), back = tid & 1, alone = (tid | 1) >= T;
  int lo = post_cut(r, (double) fl_pair_front(tid) / T);
  int hi = post_cut(r, (double) fl_pair_next(tid, T) / T);
  fl_units *taken = alone ? NULL : fl_pair_claims(r, tid - back);
  fl_claim claim = fl_claim_start(taken, hi - lo);
  double pairs = 0.0;
  for (int u = 0;; u++) {
    if (fl_claim_upto(&claim, u + 1) <= u) break;
    pairs += post_chunk(r, back ? hi - 1 - u : lo + u, cover, summary, tid);
  }
  r->tcount[(size_t) tid * FL_MF_PAD] += pairs;
}

/* Record the round's picks with their true marginal gains (chunk order). */
double fl_mf_record_picks(fl_mf *r, fl_result *res)
{
  double last = 0.0;
  for (int q = 0; q < r->npick; q++) {
    double g = 0.0;
    for (int ch = 0; ch < r->cl.nchunks; ch++) g += r->part[(size_t) ch * r->batch + q];
    res->selected[res->nselected] = r->pick[q];
    res->gains[res->nselected] = g;
    res->nselected++;
    last = g;
  }
  r->nselected = res->nselected;
  return last;
}
