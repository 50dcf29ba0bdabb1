/* The matrix-free solvers' working memory: its size, for the check
 * against facloc_memory_limit() before anything is allocated, and its
 * allocation, every failure reported as FL_ERR_NOMEM. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include "mf.h"
#include "kernel.h"

double fl_mf_bytes(const fl_problem *p, const fl_control *c, const fl_mf_config *g)
{
  double H = fl_mf_heap_count(g, c), b = fl_mf_batch_size(c), K = fl_clusters_max_leaves(p, c);
  double post = fl_mf_post_most(g, c);
  double nchunks = (double) p->n / FL_CHUNK + K;
  return fl_clusters_bytes(p, c) + 18.0 * p->m + 16.0 * p->m
    + 24.0 * p->m + 12.0 * K   /* first_plan's, and the list of what it orders */
    + 0.75 * p->m + 16.0 * (K + FL_COLS_PAD)   /* the chord bounds' (cl_chords.c) */
    + c->threads * (72.0 * p->d + 4.0 * (FL_DOT_BATCH + 3) * (K + FL_COLS_PAD))
    + 8.0 * p->m               /* the online bound's keys */
    + 8.0 * (nchunks + 1.0)    /* post_work */
    + (H * post + (c->threads + 1.0) * FL_TEAM_BATCH) * (24.0 * nchunks + 65.0 + 4.0 * p->d)
    + H * (64.0 * b + 256.0)
    + b * (12.0 * nchunks + 9.0 * K + 40.0 + 4.0 * p->d) + 8.0 * K
    + c->threads * (10.0 * K + 512.0 + 8.0 * FL_MF_PAD + 8.0 * fl_mf_lane_stride()
                    + 12.0 * (post + FL_TEAM_BATCH)
                    + 4.0 * FL_DOT_BATCH * (K + FL_COLS_PAD) + 64.0
                    + 8.0 * nchunks
                    + 4.0 * fl_thread_stride(1, sizeof(int))
                    + 8.0 * fl_thread_stride(2, sizeof(long long)));
}

/* Evaluation scratch for up to Q candidates at once. */
static int scratch_init(fl_mf_heap *s, size_t Q, size_t nch, size_t d)
{
  s->pending = malloc(Q * sizeof(fl_entry));
  s->left = malloc(Q * sizeof(double));
  s->guess = malloc(Q * sizeof(double));
  s->nitems = malloc(Q * sizeof(int));
  s->item_ch = malloc(Q * nch * sizeof(int));
  s->item_cum = malloc(Q * (nch + 1) * sizeof(int));
  s->partial = malloc(Q * nch * sizeof(double));
  s->slack = malloc(Q * nch * sizeof(double));
  s->fine = calloc(Q, 1);
  s->yo = malloc(Q * d * sizeof(float));
  s->cand = malloc(Q * sizeof(fl_cand));
  s->ahead = malloc(Q * sizeof(fl_entry));
  s->nahead = s->ahead_at = 0;
  return s->pending && s->left && s->guess && s->nitems && s->item_ch && s->item_cum &&
    s->partial && s->slack && s->fine && s->yo && s->cand && s->ahead ? FL_OK : FL_ERR_NOMEM;
}

static void scratch_free(fl_mf_heap *s, int count)
{
  if (s)
    for (int h = 0; h < count; h++) {
      free(s[h].pending); free(s[h].left); free(s[h].guess); free(s[h].nitems);
      free(s[h].item_ch); free(s[h].item_cum); free(s[h].partial); free(s[h].slack);
      free(s[h].fine); free(s[h].yo); free(s[h].cand); free(s[h].ahead);
    }
  free(s);
}

void fl_mf_free(fl_mf *r)
{
  scratch_free(r->hs, r->nheaps);
  scratch_free(r->ts, r->c->threads);
  for (int h = 0; h < r->nbar; h++) fl_barrier_destroy(&r->bar[h]);
  free(r->heaps); free(r->bar); free(r->entries);
  free(r->fresh); free(r->nfresh); free(r->ub); free(r->keys); free(r->fine_round);
  free(r->settle_round); free(r->checked); free(r->chosen);
  free(r->merged); free(r->from); free(r->pick); free(r->pcand); free(r->pyo);
  free(r->skip); free(r->part); free(r->hwpick); free(r->distpick); free(r->tcount); free(r->lanes);
  free(r->teval); free(r->tpos); free(r->tdf); free(r->taken); free(r->claims);
  free(r->post_work);
  fl_clusters_free(&r->cl);
}

int fl_mf_alloc(fl_mf *r)
{
  size_t H = (size_t) r->nheaps, b = (size_t) r->batch, K = (size_t) r->cl.K;
  size_t m = (size_t) r->cl.m, nch = (size_t) (r->cl.nchunks > 0 ? r->cl.nchunks : 1);
  size_t T = (size_t) r->c->threads;
  r->heaps = malloc(H * sizeof(fl_heap));
  r->hs = calloc(H, sizeof(fl_mf_heap));
  r->ts = calloc(T, sizeof(fl_mf_heap));
  r->bar = malloc(H * sizeof(fl_barrier));
  r->entries = malloc(m * sizeof(fl_entry));
  r->fresh = malloc(H * b * sizeof(fl_entry));
  r->nfresh = calloc(H, sizeof(int));
  r->ub = malloc(m * sizeof(double));
  r->keys = malloc(m * sizeof(double));
  r->fine_round = malloc(m * sizeof(int));
  r->settle_round = malloc(m * sizeof(int));
  r->checked = calloc(m, 1);
  r->chosen = calloc(m, 1);
  r->merged = malloc(H * b * sizeof(fl_entry));
  r->from = malloc(H * b * sizeof(int));
  r->pick = malloc(b * sizeof(int));
  r->pcand = malloc(b * sizeof(fl_cand));
  r->pyo = malloc(b * (size_t) r->cl.d * sizeof(float));
  r->skip = malloc(b * K);
  r->part = malloc(nch * b * sizeof(double));
  r->hwpick = malloc(b * K * sizeof(double));
  r->distpick = malloc(K * sizeof(double));
  r->tcount = calloc(T * FL_MF_PAD, sizeof(double));
  r->lanes = calloc(T * fl_mf_lane_stride(), sizeof(double));   /* 0: no records yet */
  r->taken = malloc(T * fl_thread_stride(1, sizeof(int)) * sizeof(int));
  r->claims = calloc(T * fl_thread_stride(2, sizeof(long long)), sizeof(long long));
  int post = fl_mf_post_most(r->cfg, r->c);
  r->qmax = post > FL_TEAM_BATCH ? post : FL_TEAM_BATCH;
  r->tpos = malloc(T * fl_thread_stride(fl_mf_tpos_size(r), sizeof(int)) * sizeof(int));
  r->tdf = malloc(T * fl_mf_tdf_size(r) * sizeof(float));
  r->post_work = malloc((nch + 1) * sizeof(double));
  r->teval = calloc(T * fl_thread_stride(r->cl.krow + 4, sizeof(int)), sizeof(int));   /* padded: plan_one */
  if (!r->heaps || !r->hs || !r->ts || !r->bar || !r->entries || !r->fresh || !r->nfresh ||
      !r->ub || !r->keys || !r->fine_round || !r->settle_round || !r->checked || !r->chosen || !r->merged ||
      !r->from || !r->pick || !r->pcand || !r->pyo ||
      !r->skip || !r->part || !r->hwpick || !r->distpick || !r->tcount || !r->lanes ||
      !r->teval || !r->tpos || !r->tdf || !r->taken || !r->claims || !r->post_work)
    return FL_ERR_NOMEM;
  for (size_t t = 0; t < T; t++) {   /* walk_chunks' buckets empty, pair_run's counts zero */
    int *bucket = fl_mf_tpos(r, (int) t) + 3 * r->qmax;
    for (int ch = 0; ch < r->cl.nchunks; ch++) bucket[ch] = -1;
    memset(bucket + nch, 0, nch * sizeof(int));
  }
  for (size_t j = 0; j < m; j++) r->fine_round[j] = r->settle_round[j] = -1;
  r->refine = r->c->eps > 0;
  for (r->nbar = 0; r->nbar < r->nheaps; r->nbar++) fl_barrier_init(&r->bar[r->nbar]);
  for (size_t h = 0; h < H; h++) {
    size_t Q = (size_t) post;
    if (h == 0 && Q < FL_TEAM_BATCH) Q = FL_TEAM_BATCH;   /* fl_mf_team_gains */
    if (scratch_init(&r->hs[h], Q, nch, (size_t) r->cl.d) != FL_OK) return FL_ERR_NOMEM;
  }
  for (size_t t = 0; t < T; t++)
    if (scratch_init(&r->ts[t], FL_TEAM_BATCH, nch, (size_t) r->cl.d) != FL_OK) return FL_ERR_NOMEM;
  return FL_OK;
}
