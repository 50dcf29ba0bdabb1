/* Chunk work: a candidate's offset, its partial gains over a chunk of
 * clients with their rounding allowance, and the post-selection pass over
 * a chunk (coverage, pruning, summaries), then the reduction of the
 * per-chunk summaries to the leaves. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#include "cl_internal.h"

void fl_clusters_offset(const fl_clusters *cl, const double *yc, float *yo, fl_cand *cand)
{
  cand->yc = yc;
  cand->yo = yo;
  cand->ynorm = sqrt(fl_offset_f(yc, cl->org, cl->d, yo));
  double norm2 = 0.0;
  for (int t = 0; t < cl->d; t++) norm2 += (double) yo[t] * yo[t];
  cand->yn2 = (float) norm2;
}

/* With a = x - org for a client x of the chunk's leaf (|a| at most the
 * leaf's span A) and b = yc - org (|b| = B, ynorm), rounding a and b to
 * single precision (a', b') moves |x - yc| by at most u (A + B), u =
 * 2^-24, so |a' - b'|^2 is at least |x - yc|^2 less 2 u (A + B)^2.  The
 * kernel computes |a' - b'|^2 as |a'|^2 + |b'|^2 - 2 a'.b': the norms
 * rounded once (u relatively each), the dot product summed over d terms
 * (within d u |a'| |b'| <= d u (A + B)^2 / 4 to first order, twice that
 * in the sum) and the sum rounded twice (2 u (A + B)^2 at most), so the
 * true squared distance is at least the computed one less (d / 2 + 5) u
 * (A + B)^2, and less (d + 5) u (A + B)^2 with room for the second-order
 * terms; the rounded 1 / (2 sigma^2) and product take off 3 u more of the
 * exponent.  So each true similarity is at most the computed one times 1
 * + eta, eta = expm1 of (d + 8) u (A + B)^2 / (2 sigma^2) + FL_EXPF_ERR
 * (plus FL_SIM_SLACK), and the true partial gain at most the computed one
 * plus eta times the computed similarity mass; the bound holds both ways,
 * so the computed gain is within the same allowance of the true one.  The
 * clients are stored relative to one origin, not to their leaf's center,
 * so that the candidate's offset is computed once per evaluation, not
 * once per chunk (measured: inst/bench/results/tunables.md, one origin
 * for the clients). */
static double rounding_allowance(const fl_clusters *cl, const fl_chunk *c, double ynorm)
{
  double reach = cl->span[c->cluster] + ynorm * (1.0 + FL_RAD_SLACK);
  double x = (cl->d + 8.0) * (0.5 * FL_F32_EPS) * reach * reach * cl->inv2s2 + FL_EXPF_ERR
    + FL_SIM_SLACK;
  return x < 1.0 ? x * (1.0 + x) : expm1(x);   /* expm1(x) <= x (1 + x) */
}

void fl_clusters_chunk_gains(const fl_clusters *cl, int ch, int nq, const fl_cand *const *cand,
                             int all, double *gain, double *slack)
{
  const fl_chunk *c = &cl->chunk[ch];
  const int d = cl->d, cnt = all ? c->hi - c->lo : c->nact;
  if (cl->xf && !cl->double_gains) {
    const float *yo[FL_DOT_BATCH];
    float yn2[FL_DOT_BATCH];
    double mass[FL_DOT_BATCH];
    for (int q = 0; q < nq; q++) {
      yo[q] = cand[q]->yo;
      yn2[q] = cand[q]->yn2;
    }
    fl_gain_dot_f(cl->xf + (size_t) c->lo * d, c->hi - c->lo, cnt, nq, yo, yn2, cl->xn + c->lo,
                  d, (float) cl->inv2s2, cl->ws + c->lo, cl->cover + c->lo, gain, mass);
    for (int q = 0; q < nq; q++) slack[q] = rounding_allowance(cl, c, cand[q]->ynorm) * mass[q];
    return;
  }
  for (int q = 0; q < nq; q++) {
    double s[FL_CHUNK], g = 0.0;
    fl_rbf_rows(cl->xs + (size_t) c->lo * d, cnt, cand[q]->yc, d, cl->inv2s2, s);
    for (int t = 0; t < cnt; t++) {
      double diff = s[t] - cl->cover[c->lo + t];
      if (diff > 0) g += cl->ws[c->lo + t] * diff;
    }
    gain[q] = g;
    slack[q] = 0.0;
  }
}

void fl_clusters_skip_table(const fl_clusters *cl, const double *hw, int npick,
                            unsigned char *skip)
{
  for (size_t q = 0; q < (size_t) npick; q++)
    for (int k = 0; k < cl->K; k++) {
      skip[q * cl->K + k] = hw[q * cl->K + k] <= cl->minall[k];
    }
}

/* Move client a of the layout to slot b (row, weight, coverage). */
static void move_client(fl_clusters *cl, int a, int b)
{
  memcpy(cl->xs + (size_t) b * cl->d, cl->xs + (size_t) a * cl->d, (size_t) cl->d * sizeof(double));
  cl->ws[b] = cl->ws[a];
  cl->cover[b] = cl->cover[a];
}

/* Stable partition of the chunk's active clients: those still at or below
 * tau stay in front in their order, the newly pruned follow them. */
static void prune_chunk(fl_clusters *cl, fl_chunk *c, int tid)
{
  int d = cl->d, keep = c->lo, np = 0;
  double *sx = cl->scratch + tid * fl_thread_stride((size_t) FL_CHUNK * (d + 2), sizeof(double));
  double *sw = sx + (size_t) FL_CHUNK * d, *sc = sw + FL_CHUNK;
  for (int i = c->lo; i < c->lo + c->nact; i++) {
    if (cl->cover[i] > cl->tau) {
      memcpy(sx + (size_t) np * d, cl->xs + (size_t) i * d, (size_t) d * sizeof(double));
      sw[np] = cl->ws[i];
      sc[np++] = cl->cover[i];
    } else {
      if (keep != i) move_client(cl, i, keep);
      keep++;
    }
  }
  for (int t = 0; t < np; t++) {
    memcpy(cl->xs + (size_t) (keep + t) * d, sx + (size_t) t * d, (size_t) d * sizeof(double));
    cl->ws[keep + t] = sw[t];
    cl->cover[keep + t] = sc[t];
  }
  c->nact = keep - c->lo;
  if (np > 0 && cl->xf) fl_cl_single_precision_chunk(cl, (int) (c - cl->chunk));
}

static void summarise_chunk(fl_clusters *cl, int ch)
{
  const fl_chunk *c = &cl->chunk[ch];
  fl_summary s = { 0.0, 1.0, 0.0, 1.0, 0.0 };
  for (int i = c->lo; i < c->hi; i++) {
    double v = cl->cover[i];
    if (i < c->lo + c->nact) {
      s.wact += cl->ws[i];
      if (v < s.minact) s.minact = v;
    } else {
      s.wpr += cl->ws[i];
      s.slackpr += cl->ws[i] * (1.0 - v);
      if (v < s.minpr) s.minpr = v;
    }
  }
  cl->csum[ch] = s;
  cl->touched[ch] = 1;
}

/* Whether pick p, by similarities computed in single precision as the
 * gain kernel's (within rounding_allowance() of the true ones), may raise
 * the coverage of a client of chunk c: if not, the double-precision ones
 * would not either: few of the chunks a pick visits have a client to
 * raise (measured: inst/bench/results/tunables.md, may_raise). */
static int may_raise(const fl_clusters *cl, const fl_chunk *c, const fl_cand *p)
{
  const int cnt = c->hi - c->lo;
  float s[FL_CHUNK];   /* FL_CHUNK is a multiple of FL_COLS_PAD */
  fl_sqdist_dot_f(cl->xf + (size_t) c->lo * cl->d, cnt, cnt, 1, &p->yo, &p->yn2, cl->xn + c->lo,
                  cl->d, s, 0);
  for (int t = 0; t < cnt; t++) s[t] = (float) (s[t] * cl->inv2s2);
  fl_expf_neg_array(s, cnt);
  /* FL_RAISE_SLACK: the double-precision similarities' own rounding */
  const double up = (1.0 + rounding_allowance(cl, c, p->ynorm)) * (1.0 + FL_RAISE_SLACK);
  const double *cover = cl->cover + c->lo;
  for (int t = 0; t < cnt; t++)
    if (s[t] * up > cover[t]) return 1;
  return 0;
}

double fl_clusters_post_chunk(fl_clusters *cl, int ch, const fl_cand *pick, int npick,
                              const unsigned char *skip, double *part, int cover,
                              int summary, int tid)
{
  fl_chunk *c = &cl->chunk[ch];
  int K = cl->K, cnt = c->hi - c->lo, raised = !cover;
  double pairs = 0.0, s[FL_CHUNK];
  for (int q = 0; cover && q < npick; q++) {
    double g = 0.0;
    if (!skip[(size_t) q * K + c->cluster]) {
      pairs += cnt;
      if (cl->xf && !may_raise(cl, c, &pick[q])) {
        if (part) part[q] = 0.0;
        continue;
      }
      fl_rbf_rows(cl->xs + (size_t) c->lo * cl->d, cnt, pick[q].yc, cl->d, cl->inv2s2, s);
      for (int t = 0; t < cnt; t++) {
        double diff = s[t] - cl->cover[c->lo + t];
        if (diff > 0) {
          g += cl->ws[c->lo + t] * diff;
          cl->cover[c->lo + t] = s[t];
          raised = 1;
        }
      }
    }
    if (part) part[q] = g;
  }
  /* a chunk whose coverage the picks left as it was keeps its summary and
   * has nothing new to prune (its summary was made when the layout was) */
  if (summary && raised) {
    if (cl->prune) prune_chunk(cl, c, tid);
    summarise_chunk(cl, ch);
  }
  return pairs;
}

/* Did a chunk of leaf k get a new summary since the last reduction?
 * Clears their flags.  A leaf without clients (k-means may leave one
 * empty) has no chunk to flag: its values, those of no clients, are set
 * every time. */
static int leaf_touched(fl_clusters *cl, int k)
{
  int any = cl->first[k] == cl->first[k + 1];
  for (int ch = cl->first[k]; ch < cl->first[k + 1]; ch++) {
    any |= cl->touched[ch];
    cl->touched[ch] = 0;
  }
  return any;
}

/* Only the leaves whose chunks the picks raised change: the others keep
 * their values, which computing them anew (four log()s each) would give
 * again (measured: inst/bench/results/tunables.md, fl_clusters_reduce). */
void fl_clusters_reduce(fl_clusters *cl)
{
  for (int k = 0; k < cl->K; k++) {
    if (!leaf_touched(cl, k)) continue;
    fl_summary s = { 0.0, 1.0, 0.0, 1.0, 0.0 };
    for (int ch = cl->first[k]; ch < cl->first[k + 1]; ch++) {
      const fl_summary *c = &cl->csum[ch];
      s.wact += c->wact;
      s.wpr += c->wpr;
      s.slackpr += c->slackpr;
      if (c->minact < s.minact) s.minact = c->minact;
      if (c->minpr < s.minpr) s.minpr = c->minpr;
    }
    cl->wact[k] = s.wact;
    cl->minact[k] = s.minact;
    cl->wpr[k] = s.wpr;
    cl->minpr[k] = s.minpr;
    cl->slackpr[k] = s.slackpr;
    cl->wall[k] = s.wact + s.wpr;
    cl->minall[k] = s.minact < s.minpr ? s.minact : s.minpr;
    cl->lnw[k] = s.wact > 0 ? log(s.wact) : -HUGE_VAL;
    cl->lnw_all[k] = s.wact + s.wpr > 0 ? log(s.wact + s.wpr) : -HUGE_VAL;
    cl->lnmin[k] = s.minact > 0 ? log(s.minact) : -HUGE_VAL;
    cl->lnmin_all[k] = cl->minall[k] > 0 ? log(cl->minall[k]) : -HUGE_VAL;
    fl_cl_leaf_floats(cl, k);
  }
  cl->pruned = 0.0;
  for (int k = 0; k < cl->K; k++) cl->pruned += cl->slackpr[k];
}

/* The pruned clients of a chunk follow its active ones (prune_chunk), so
 * readmitting them moves nothing: the single-precision copy, made for
 * the whole chunk, stays as it is. */
void fl_clusters_readmit(fl_clusters *cl)
{
  for (int ch = 0; ch < cl->nchunks; ch++) {
    fl_chunk *c = &cl->chunk[ch];
    if (c->nact == c->hi - c->lo) continue;
    c->nact = c->hi - c->lo;
    summarise_chunk(cl, ch);
  }
  fl_clusters_reduce(cl);
  cl->tau = 0.5 * (1.0 + cl->tau);
}

double fl_clusters_objective(const fl_clusters *cl)
{
  double f = 0.0;
  for (int i = 0; i < cl->n; i++) f += cl->ws[i] * cl->cover[i];
  return f;
}
