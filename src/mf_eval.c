/* Gain evaluations on the cluster layout: each posted candidate's plan
 * (which leaves it visits, the bound on what it skips) and its partial
 * gains chunk by chunk, shared out to a group's lanes (mf_share.c), the
 * candidates posted together reading each chunk once.  Partial gains are
 * added in chunk order, so a gain has the same bits for any lane count. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"

static int chunk_pairs(const fl_chunk *c, int all)
{
  return all ? c->hi - c->lo : c->nact;
}

/* Plan posted candidate q, its distances to the centers df, with thread
 * tid's scratch: the bound on what it skips, and its work items, the
 * chunks of the clusters the plan visits in chunk order, with the client
 * visits before each. */
static void plan_one(fl_mf *r, fl_mf_heap *s, int q, float *df, int all, int tid)
{
  const fl_clusters *cl = &r->cl;
  int *eval = r->teval + tid * fl_thread_stride(cl->krow + 4, sizeof(int));
  int fine = s->fine[q], coarse = !fine && !all, bounds = fine == FL_FINE_BOUNDS;
  /* estimates of what is skipped go into the keys of coarse evaluations
   * where fine ones check the picks (r->refine), and into the first ones;
   * none where the leaves are not judged by estimates */
  double *skipped = coarse && (r->guess || r->refine) && cl->estimates ? &s->guess[q] : NULL;
  s->guess[q] = 0.0;
  double thresh = fine && !bounds ? FL_FINE_FRACTION * r->thresh : r->thresh;
  fl_cold cold = all || bounds || r->guess || !cl->estimates ? FL_COLD_NONE
    : fine ? FL_COLD_OWNER : FL_COLD_ALL;
  s->left[q] = fl_clusters_plan(cl, &s->cand[q], df, thresh, all, cold, eval, skipped);
  int *items = s->item_ch + (size_t) q * cl->nchunks, n = 0, nleaves;
  int *cum = s->item_cum + (size_t) q * (cl->nchunks + 1), visits = 0;
  const int *leaf = fl_clusters_visited(cl, eval, &nleaves);
  for (int t = 0; t < nleaves; t++)
    for (int ch = cl->first[leaf[t]]; ch < cl->first[leaf[t] + 1]; ch++) {
      int v = chunk_pairs(&cl->chunk[ch], all);   /* no branch: empty chunks are common */
      cum[n] = visits;
      items[n] = ch;
      n += v > 0;
      visits += v;
    }
  cum[n] = visits;
  s->nitems[q] = n;
}

/* Start loading the d doubles at row into the caches. */
static inline void prefetch_row(const double *row, int d)
{
#if defined(__GNUC__)
  const char *at = (const char *) row, *end = (const char *) (row + d);
  for (; at < end; at += FL_LINE) __builtin_prefetch(at);
  __builtin_prefetch(end - 1);
#else
  (void) row; (void) d;
#endif
}

/* Plan posted candidates q0..q1-1 (at most FL_DOT_BATCH), their
 * distances to the centers computed together. */
static void plan_batch(fl_mf *r, fl_mf_heap *s, int q0, int q1, int all, int tid)
{
  const fl_clusters *cl = &r->cl;
  const fl_cand *cand[FL_DOT_BATCH];
  float *df = r->tdf + (size_t) tid * fl_mf_tdf_size(r);
  /* The posted candidates' rows are seldom in the caches: start all
   * their loads first. */
  for (int q = q0; q < q1; q++) prefetch_row(cl->y + (size_t) s->pending[q].idx * cl->d, cl->d);
  for (int q = q0; q < q1; q++) {
    const double *yc = cl->y + (size_t) s->pending[q].idx * cl->d;
    fl_clusters_offset(cl, yc, s->yo + (size_t) q * cl->d, &s->cand[q]);
    cand[q - q0] = &s->cand[q];
  }
  fl_clusters_distances(cl, q1 - q0, cand, df);
  for (int q = q0; q < q1; q++) plan_one(r, s, q, df + (size_t) (q - q0) * cl->krow, all, tid);
}

/* Plan the posted candidates [lo, hi) this lane holds of its pair's run,
 * FL_DOT_BATCH at a time; returns how many it planned. */
static int plan_run(fl_mf *r, fl_mf_heap *s, int lo, int hi, fl_units *taken, int back,
                    int all, int tid)
{
  fl_claim claim = fl_claim_start(taken, hi - lo);
  int done = 0;
  for (int u = 0;;) {
    int held = (int) fl_claim_upto(&claim, u + 1);   /* a batch, or what is left */
    if (held <= u) break;
    int v = held < u + FL_DOT_BATCH ? held : u + FL_DOT_BATCH;
    plan_batch(r, s, back ? hi - v : lo + u, back ? hi - u : lo + v, all, tid);
    done += v - u;
    u = v;
  }
  return done;
}

/* Candidate q's first item in chunk ch or a later one. */
static int item_from(const fl_mf_heap *s, int q, int ch, int nchunks)
{
  const int *it = s->item_ch + (size_t) q * nchunks;
  int lo = 0, hi = s->nitems[q];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (it[mid] < ch) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A pair's run of chunk ids [lo, hi) for the visit fractions f of a
 * step: every chunk is read by one pair, with all the candidates that
 * visit it, as at one thread (cutting each candidate's visits at the
 * fractions instead reads more chunks, in kernel calls with fewer
 * candidates each).  count[] (nchunks, zero), the visits per
 * chunk of all the posted candidates, takes one pass over their items,
 * which each lane makes itself rather than meet once more; it is left
 * zero. */
typedef struct { int lo, hi; } fl_run;

/* The first chunk before which lie at least want of the visits counted. */
static int run_cut(const int *count, int first, int last, double want)
{
  double sum = 0.0;
  int ch = first;
  while (ch <= last && sum < want) sum += count[ch++];
  return ch;
}

static fl_run pair_run(const fl_mf_heap *s, int np, int nchunks, fl_cut f, int *count)
{
  fl_run run = { 0, nchunks };
  if (f.lo <= 0.0 && f.hi >= 1.0) return run;
  int first = nchunks, last = -1;
  double total = 0.0;
  for (int q = 0; q < np; q++) {
    const int *it = s->item_ch + (size_t) q * nchunks;
    const int *cum = s->item_cum + (size_t) q * (nchunks + 1), n = s->nitems[q];
    for (int t = 0; t < n; t++) count[it[t]] += cum[t + 1] - cum[t];
    if (n > 0 && it[0] < first) first = it[0];
    if (n > 0 && it[n - 1] > last) last = it[n - 1];
    total += cum[n];
  }
  if (f.lo > 0.0) run.lo = run_cut(count, first, last, f.lo * total);
  if (f.hi < 1.0) run.hi = run_cut(count, first, last, f.hi * total);
  if (last >= first) memset(count + first, 0, (size_t) (last - first + 1) * sizeof(int));
  return run;
}

/* The client visits of posted candidate q's item at. */
static int item_visits(const fl_mf_heap *s, int q, int at, int nchunks)
{
  const int *cum = s->item_cum + (size_t) q * (nchunks + 1);
  return cum[at + 1] - cum[at];
}

/* The chunk of posted candidate q's item at cursor at, -1 at stop. */
static int item_chunk(const fl_mf_heap *s, int q, int at, int stop, int nchunks)
{
  return at != stop ? s->item_ch[(size_t) q * nchunks + at] : -1;
}

/* The partial gains over chunk ch of nq posted candidates cand[], into
 * their items item[] (walk_chunks). */
static void chunk_share(const fl_clusters *cl, fl_mf_heap *s, int ch,
                        const fl_cand *const *cand, const size_t *item, int nq, int all)
{
  double gain[FL_DOT_BATCH], slack[FL_DOT_BATCH];
  fl_clusters_chunk_gains(cl, ch, nq, cand, all, gain, slack);
  for (int t = 0; t < nq; t++) {
    s->partial[item[t]] = gain[t];
    s->slack[item[t]] = slack[t];
  }
}

/* The extent of a lane's part of a run: its first and last chunks
 * visited, its client visits, and the posted candidates' visits in all. */
typedef struct {
  int first, last;
  fl_units visits;
  double total;
} fl_extent;

/* Each posted candidate's cursor (pos) and end (stop) over its items in
 * the run, from the run's front or its back. */
static fl_extent start_cursors(const fl_mf *r, const fl_mf_heap *s, int *pos, int *stop,
                               fl_run run, int back)
{
  const int nch = r->cl.nchunks;
  fl_extent e = { INT_MAX, -1, 0, 0.0 };
  for (int q = 0; q < s->npend; q++) {
    const int *it = s->item_ch + (size_t) q * nch;
    const int *cum = s->item_cum + (size_t) q * (nch + 1);
    int a = run.lo > 0 ? item_from(s, q, run.lo, nch) : 0;
    int b = run.hi < nch ? item_from(s, q, run.hi, nch) : s->nitems[q];
    pos[q] = back ? b - 1 : a;
    stop[q] = back ? a - 1 : b;
    if (a < b) {
      e.first = it[a] < e.first ? it[a] : e.first;
      e.last = it[b - 1] > e.last ? it[b - 1] : e.last;
    }
    e.visits += cum[b] - cum[a];
    e.total += cum[s->nitems[q]];
  }
  return e;
}

/* bucket[ch]: the candidates whose next item is chunk ch, linked by
 * link[] (-1 ends a list; every bucket is empty between calls), where two
 * scans of the posted candidates for each chunk cost more.  Chunk ch is u
 * = dir (ch - base) from this lane's end of the run; returns the furthest
 * u with a candidate, -1 if none. */
static int fill_buckets(const fl_mf_heap *s, const int *pos, const int *stop, int nch, int dir,
                        int base, int *link, int *bucket)
{
  int far = -1;
  for (int q = 0; q < s->npend; q++) {
    int ch = item_chunk(s, q, pos[q], stop[q], nch);
    if (ch < 0) continue;
    link[q] = bucket[ch];
    bucket[ch] = q;
    far = dir * (ch - base) > far ? dir * (ch - base) : far;
  }
  return far;
}

/* This lane's part of its pair's run of chunk ids: chunk by chunk across
 * the posted candidates (their lists of items are in chunk order, merged
 * here), from the run's front or its back, each chunk with all the
 * candidates that visit it: the candidates posted together are mostly
 * close to each other, so a chunk read once from memory serves several of
 * them (once the clients no longer fit in the caches), up to
 * FL_DOT_BATCH in one kernel call that loads each coordinate of the chunk
 * once for all of them.  A candidate's partial gain over a chunk has the
 * same bits whichever others share the call.  Returns the client visits
 * of the posted candidates in all; *mine receives this lane's. */
static double walk_chunks(fl_mf *r, fl_mf_heap *s, int all, int tid, fl_run run,
                          fl_units *taken, int back, double *mine)
{
  const fl_clusters *cl = &r->cl;
  const int nch = cl->nchunks;
  int *pos = fl_mf_tpos(r, tid);
  int *stop = pos + r->qmax, *link = stop + r->qmax, *bucket = link + r->qmax;
  fl_extent ext = start_cursors(r, s, pos, stop, run, back);
  const int first = ext.first, last = ext.last;
  const fl_units visits = ext.visits;
  const double total = ext.total;
  *mine = 0.0;
  if (last < first) return total;
  const int dir = back ? -1 : 1, base = back ? last : first;
  int far = fill_buckets(s, pos, stop, nch, dir, base, link, bucket);
  /* The claims count client visits: a chunk is this lane's when it holds
   * the chunk's first visit counted from the front. */
  fl_claim claim = fl_claim_start(taken, visits);
  double pairs = 0.0;
  int u = 0;
  fl_units done = 0;   /* visits claimed from this lane's end before chunk u */
  for (; u <= far; u++) {
    const int ch = base + dir * u;
    if (bucket[ch] < 0) continue;
    if (taken) {
      fl_units here = 0;
      for (int q = bucket[ch]; q >= 0; q = link[q]) here += item_visits(s, q, pos[q], nch);
      if (fl_claim_upto(&claim, done + here) <= (back ? done + here - 1 : done))
        break;   /* the rest is the other lane's */
      done += here;
    }
    const fl_cand *cand[FL_DOT_BATCH] = { NULL };
    size_t item[FL_DOT_BATCH];
    int nq = 0, nvisit = 0;
    for (int q = bucket[ch]; q >= 0;) {
      int after = link[q];
      nvisit++;
      cand[nq] = &s->cand[q];
      item[nq++] = (size_t) q * nch + pos[q];
      pos[q] += dir;
      int to = item_chunk(s, q, pos[q], stop[q], nch);   /* further on */
      if (to >= 0) {
        link[q] = bucket[to];
        bucket[to] = q;
        far = dir * (to - base) > far ? dir * (to - base) : far;
      }
      if (nq == FL_DOT_BATCH || after < 0) {
        chunk_share(cl, s, ch, cand, item, nq, all);
        nq = 0;
      }
      q = after;
    }
    bucket[ch] = -1;
    pairs += (double) chunk_pairs(&cl->chunk[ch], all) * nvisit;
  }
  for (; u <= far; u++) bucket[base + dir * u] = -1;
  r->tcount[(size_t) tid * FL_MF_PAD] += pairs;
  *mine = (double) (taken ? done : visits);
  return total;
}

/* This lane's part of the posted evaluations, its pair's runs in *sh:
 * its plans, then, after the group of M (bar; NULL for a group of one)
 * meets, its client visits.  rec, when not NULL, receives what it did in
 * each phase (FL_PHASE_PLANS, FL_PHASE_VISITS). */
void fl_mf_eval_share(fl_mf *r, fl_mf_heap *s, int all, fl_share sh, int lane, int M,
                       fl_barrier *bar, int tid, fl_lane_step *rec)
{
  const int np = s->npend, back = lane & 1, alone = (lane | 1) >= M;
  fl_units *claims = alone ? NULL : fl_pair_claims(r, tid - back);
  double start = rec ? fl_wtime() : 0.0;
  int plans = plan_run(r, s, fl_cut_at(sh.plans.lo, np), fl_cut_at(sh.plans.hi, np),
                       alone ? NULL : &claims[0], back, all, tid);
  if (rec) {
    fl_lane_step p = { np > 0 ? (double) plans / np : 0.0, fl_wtime() - start, plans };
    rec[FL_PHASE_PLANS] = p;
  }
  if (bar) fl_barrier_wait(bar, M);   /* plans written */
  if (rec) start = fl_wtime();
  int *count = fl_mf_tpos(r, tid) + 3 * r->qmax + r->cl.nchunks;
  fl_run run = pair_run(s, np, r->cl.nchunks, sh.visits, count);
  double mine, total = walk_chunks(r, s, all, tid, run, alone ? NULL : &claims[1], back, &mine);
  if (rec) {
    fl_lane_step v = { total > 0.0 ? mine / total : 0.0, fl_wtime() - start, mine };
    rec[FL_PHASE_VISITS] = v;
  }
}

/* The posted evaluations by the calling thread alone. */
void fl_mf_eval_alone(fl_mf *r, fl_mf_heap *s, int tid)
{
  fl_mf_eval_share(r, s, 0, fl_pair_even(0, 1), 0, 1, NULL, tid, NULL);
}

/* Partial gains of posted candidate q added in chunk order: the same bits
 * for any lane count.  *ub receives an upper bound on its true gain. */
static double eval_total(const fl_mf_heap *s, const fl_clusters *cl, int q, double *ub)
{
  const double *partial = s->partial + (size_t) q * cl->nchunks;
  const double *slack = s->slack + (size_t) q * cl->nchunks;
  double g = 0.0, room = s->left[q];
  for (int t = 0; t < s->nitems[q]; t++) {
    g += partial[t];
    room += slack[t];
  }
  *ub = (g + room) * (1.0 + FL_UB_SLACK);
  return g;
}

/* Posted candidate q keyed by its evaluated gain (a coarse one raised by
 * FL_TIE), fresh in round `round`; its upper bound tightened. */
fl_entry fl_mf_evaluated(fl_mf *r, const fl_mf_heap *s, int q, int round)
{
  fl_entry e = s->pending[q];
  double ub, g = eval_total(s, &r->cl, q, &ub) + s->guess[q];
  if (ub < r->ub[e.idx]) r->ub[e.idx] = ub;
  if (s->fine[q]) {
    r->fine_round[e.idx] = round;
  } else {
    r->checked[e.idx] = 0;   /* a coarse key again: a loose rival again */
    if (r->refine) g *= 1.0 + FL_TIE;
  }
  e.key = g;
  e.round = round;
  return e;
}

/* Every thread of the team evaluates its share of the candidates posted
 * in heap 0's scratch (no heap is being refreshed).  Call from all threads
 * of a parallel region, and meet them before the partial gains are read. */
void fl_mf_team_eval(fl_mf *r, int all)
{
  int M = fl_team_size(), lane = fl_thread_id();
  fl_mf_eval_share(r, &r->hs[0], all, fl_pair_even(lane, M), lane, M, M > 1 ? &r->bar[0] : NULL, lane, NULL);
}

/* Gains of the np <= FL_TEAM_BATCH candidates in r->hs[0].pending
 * against the current coverage, over all clients of the clusters whose
 * bound reaches thresh (all with a positive bound when thresh is 0: exact
 * gains), evaluated by the whole team as one group, and upper bounds
 * ub[q] on the true gains. */
void fl_mf_team_gains(fl_mf *r, int np, double thresh, double *gain, double *ub)
{
  fl_mf_heap *s = &r->hs[0];
  double keep = r->thresh;
  r->thresh = thresh;
  s->npend = np;
  memset(s->fine, 0, (size_t) np);
  fl_claims_reset(r, 0, r->c->threads);
FL_OMP(parallel num_threads(fl_team(r->cl.threads)))
  fl_mf_team_eval(r, 1);
  r->thresh = keep;
  r->tcount[1] += np;
  for (int q = 0; q < np; q++) gain[q] = eval_total(s, &r->cl, q, &ub[q]);
}
