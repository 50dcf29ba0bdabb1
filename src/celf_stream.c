/* Mode dc for points whose n x m matrix does not fit: the same lazy
 * greedy, its gains computed from the points instead of read from a
 * matrix.  A batch of candidates at a time goes through the tiled kernel
 * against every client, so one read of the packed clients serves the
 * batch.  The similarities are the bits the matrix would hold (the same
 * tiles), each gain summed client by client in client order as fl_gain()
 * sums a column, and the coverage raised from the same tiles: the picks
 * and gains of dc with its matrix, in memory linear in n + m.
 *
 * One heap.  A refresh pops the stale entries at its top, a batch at a
 * time (refresh_top), and evaluates them together: the ones beyond the
 * first are evaluated ahead, which costs little beside the read of the
 * clients they share.  A fresh key is an exact gain and a stale one an
 * upper bound (submodularity), so a fresh top is greedy's pick, ties to
 * the lowest index.  A candidate whose live clients are few keeps them
 * (exact_gain.c's lists): its later gains read the list, no kernel. */
#include <stdlib.h>
#include <string.h>
#include "celf_common.h"
#include "fl_omp.h"
#include "fl_solvers.h"
#include "fl_tune.h"
#include "kernel.h"

/* A thread's room for a block of candidates: their rows and norms
 * gathered, packed, and a tile of their similarities; and, for the blocks
 * of a refresh, each one's live clients as the tiles pass (list_room()
 * of them a candidate). */
typedef struct {
  double *ys, *yn, *tile, *value;
  void *yp;
  int *client, *count;
} stream_scratch;

typedef struct {
  const fl_problem *p;
  fl_tiles t;
  int team, rows;      /* rows: candidates of a block of the first gains */
  stream_scratch *w;   /* team of them, made once */
} fl_stream;

/* The most candidates of a block of a refresh. */
static int stream_rows_most(void)
{
  return FL_STREAM_ROWS << FL_STREAM_GROWTH;
}

/* Entries of a candidate's list while the tiles pass: one past the most
 * it may keep, which tells that it may not. */
static size_t list_room(const fl_problem *p)
{
  return (size_t) (p->n / FL_LIVE_SHARE) + 1;
}

static int scratch_init(stream_scratch *w, const fl_stream *S, int rows)
{
  int d = S->p->d;
  size_t room = (size_t) stream_rows_most() * list_room(S->p);
  w->ys = malloc(sizeof(double) * (size_t) rows * d);
  w->yn = malloc(sizeof(double) * (size_t) rows);
  w->tile = malloc(sizeof(double) * (size_t) rows * FL_TILE_CLIENTS);
  w->yp = malloc(fl_tiles_packed_bytes(&S->t, rows, d));
  w->client = malloc(sizeof(int) * room);
  w->value = malloc(sizeof(double) * room);
  w->count = malloc(sizeof(int) * (size_t) rows);
  return w->ys && w->yn && w->tile && w->yp && w->count && w->client && w->value;
}

static void scratch_free(stream_scratch *w)
{
  free(w->ys); free(w->yn); free(w->tile); free(w->yp);
  free(w->client); free(w->value); free(w->count);
}

/* The packed points and each thread's room for blocks of up to `rows`
 * candidates.  FL_OK or FL_ERR_NOMEM, nothing then left allocated. */
static int stream_init(fl_stream *S, const fl_problem *p, int threads, int rows)
{
  S->p = p;
  S->team = fl_team(threads);
  S->rows = rows;
  S->w = calloc((size_t) S->team, sizeof(stream_scratch));
  if (!S->w) return FL_ERR_NOMEM;
  if (fl_tiles_init(&S->t, p, threads, 0) != FL_OK) {
    free(S->w);
    return FL_ERR_NOMEM;
  }
  int ok = 1;
  for (int t = 0; t < S->team; t++) ok = scratch_init(&S->w[t], S, rows) && ok;
  if (ok) return FL_OK;
  for (int t = 0; t < S->team; t++) scratch_free(&S->w[t]);
  free(S->w);
  fl_tiles_free(&S->t);
  return FL_ERR_NOMEM;
}

static void stream_free(fl_stream *S)
{
  for (int t = 0; t < S->team; t++) scratch_free(&S->w[t]);
  free(S->w);
  fl_tiles_free(&S->t);
}

/* The candidates js[0..cnt-1] as a contiguous block 0..cnt-1 of a view
 * of the problem (q) and of its tiles (tv), packed into w->yp. */
static void gather(const fl_stream *S, const int *js, int cnt, stream_scratch *w,
                   fl_problem *q, fl_tiles *tv)
{
  const fl_problem *p = S->p;
  for (int a = 0; a < cnt; a++) {
    memcpy(w->ys + (size_t) a * p->d, p->y + (size_t) js[a] * p->d, sizeof(double) * p->d);
    w->yn[a] = S->t.yn[js[a]];
  }
  *q = *p;
  q->y = w->ys;
  *tv = S->t;
  tv->yn = w->yn;
  fl_tiles_pack(tv, q, 0, cnt, w->yp);
}

/* Appends the clients of tile s (clients i0..i0 + nc - 1) that the
 * candidate would cover better than the set does to its list, until it
 * holds more than `most` (then no more: the list will not be kept). */
static void tile_live(const double *s, const double *cover, int i0, int nc, int most,
                      int *client, double *value, int *count)
{
  int c = *count;
  for (int i = i0; i < i0 + nc && c <= most; i++) {
    client[c] = i;
    value[c] = s[i];
    c += s[i] > cover[i];
  }
  *count = c;
}

/* gain[a] = the gain of js[a] at s's coverage, a < cnt; with lists, each
 * candidate keeps its live clients where they are few (fl_live_keep). */
static void block_gains(const fl_stream *S, fl_state *s, const int *js, int cnt, int lists,
                        stream_scratch *w, double *gain)
{
  const fl_problem *p = S->p;
  const double *wt = p->weight, *cover = s->cover;
  const int n = p->n, most = n / FL_LIVE_SHARE;
  const size_t room = list_room(p);
  fl_problem q;
  fl_tiles tv;
  gather(S, js, cnt, w, &q, &tv);
  for (int a = 0; a < cnt; a++) gain[a] = 0.0, w->count[a] = 0;
  for (int i0 = 0; i0 < n; i0 += FL_TILE_CLIENTS) {
    int nc = n - i0 < FL_TILE_CLIENTS ? n - i0 : FL_TILE_CLIENTS;
    fl_tiles_block(&tv, &q, 0, cnt, w->yp, w->tile, FL_TILE_CLIENTS, i0, nc);
    for (int a = 0; a < cnt; a++) {
      const double *t = w->tile + (size_t) a * FL_TILE_CLIENTS - i0;
      double g = gain[a];
      if (wt) for (int i = i0; i < i0 + nc; i++) g += wt[i] * fl_positive(t[i] - cover[i]);
      else for (int i = i0; i < i0 + nc; i++) g += fl_positive(t[i] - cover[i]);
      gain[a] = g;
      if (lists && w->count[a] <= most)
        tile_live(t, cover, i0, nc, most, w->client + a * room, w->value + a * room,
                  &w->count[a]);
    }
  }
  for (int a = 0; lists && a < cnt; a++)
    fl_live_keep(s, js[a], w->client + a * room, w->value + a * room, w->count[a]);
}

/* The gains of js[0..cnt-1], blocks of `rows` candidates shared out among
 * the threads, with lists (the blocks of a refresh) or not. */
static void stream_gains(const fl_stream *S, fl_state *s, const int *js, int cnt, int rows,
                         int lists, double *gain)
{
  int nb = (cnt + rows - 1) / rows;
  int team = fl_par_threads(S->team, (double) cnt * S->p->n, FL_PAR_MIN_PAIRS);
  if (team > nb) team = nb;
FL_OMP(parallel for num_threads(team) schedule(dynamic, 1))
  for (int b = 0; b < nb; b++) {
    int a0 = b * rows;
    block_gains(S, s, js + a0, cnt - a0 < rows ? cnt - a0 : rows, lists, &S->w[fl_thread_id()],
                gain + a0);
  }
  (void) team;
}

/* cover = max(cover, candidate j's similarities), from the tiles. */
static void stream_cover(const fl_stream *S, int j, double *cover)
{
  const fl_problem *p = S->p;
  stream_scratch *w = &S->w[0];
  fl_problem q;
  fl_tiles tv;
  gather(S, &j, 1, w, &q, &tv);
  for (int i0 = 0; i0 < p->n; i0 += FL_TILE_CLIENTS) {
    int nc = p->n - i0 < FL_TILE_CLIENTS ? p->n - i0 : FL_TILE_CLIENTS;
    fl_tiles_block(&tv, &q, 0, 1, w->yp, w->tile, FL_TILE_CLIENTS, i0, nc);
    for (int i = 0; i < nc; i++)
      if (w->tile[i] > cover[i0 + i]) cover[i0 + i] = w->tile[i];
  }
}

/* Commit candidate j with its gain: its similarities raise the coverage. */
static void stream_select(fl_state *s, const fl_stream *S, int j, double gain, fl_result *res)
{
  stream_cover(S, j, s->cover);
  s->pairs += s->p.n;
  fl_state_record(s, j, gain, res);
}

/* The first gains' blocks of candidates: the tiled pass's. */
static int first_rows(const fl_problem *p, int threads)
{
  int rows = fl_tile_candidates_for(p->d, p->m, fl_team(threads));
  return rows > stream_rows_most() ? rows : stream_rows_most();
}

/* The initial facilities open, their coverage from the tiles, and the
 * first gains of the open candidates into their entries, a slice of
 * candidates at a time so that an interrupt is seen between slices.
 * FL_OK or FL_INTERRUPTED; *nopen the entries. */
static int stream_start(fl_state *s, const fl_stream *S, const fl_control *c,
                        fl_entry *entries, int *js, double *gain, int *nopen)
{
  const fl_problem *p = S->p;
  for (int t = 0; t < p->ninitial; t++) {
    s->chosen[p->initial[t]] = 1;
    stream_cover(S, p->initial[t], s->cover);
  }
  int count = 0;
  for (int j = 0; j < p->m; j++)
    if (!s->chosen[j]) js[count++] = j;
  int slice = S->rows * S->team * FL_STREAM_SLICE;
  for (int a0 = 0; a0 < count; a0 += slice) {
    if (fl_interrupted(c)) return FL_INTERRUPTED;
    stream_gains(S, s, js + a0, count - a0 < slice ? count - a0 : slice, S->rows, 0, gain + a0);
  }
  for (int a = 0; a < count; a++) entries[a] = (fl_entry) { gain[a], js[a], 0 };
  s->evaluations += count;
  s->pairs += (double) count * p->n;
  *nopen = count;
  return FL_OK;
}

/* Refresh until the top is fresh for this round: a stale top that kept
 * its list at once, the others a batch at a time through the tiles.  The
 * first batch of a round is FL_STREAM_ROWS a thread; where that did not
 * make the top fresh (early rounds, wide kernels: thousands of stale keys
 * above it), each next one is twice as large, up to FL_STREAM_GROWTH
 * doublings: one read of the packed clients serves more candidates, and
 * at most about half of what is evaluated is evaluated ahead of need. */
static void refresh_top(fl_state *s, const fl_stream *S, fl_heap *h, int round, int *js,
                        double *gain)
{
  for (int batches = 0; h->size > 0 && h->a[0].round != round; batches++) {
    int rows = FL_STREAM_ROWS << (batches < FL_STREAM_GROWTH ? batches : FL_STREAM_GROWTH);
    int batch = rows * S->team, cnt = 0;
    while (cnt < batch && h->size > 0 && h->a[0].round != round) {
      fl_entry e = fl_heap_pop(h);
      s->evaluations += 1.0;
      if (s->live[e.idx].kept)
        fl_heap_push(h, (fl_entry) { fl_live_gain(s, e.idx), e.idx, round });
      else
        js[cnt++] = e.idx;
    }
    if (cnt == 0) continue;
    int share = fl_tile_candidates_for(s->p.d, cnt, S->team);   /* a block for every thread */
    stream_gains(S, s, js, cnt, share < rows ? share : rows, 1, gain);
    for (int a = 0; a < cnt; a++) fl_heap_push(h, (fl_entry) { gain[a], js[a], round });
    s->pairs += (double) cnt * s->p.n;
  }
}

double fl_dc_stream_bytes(const fl_problem *p, const fl_control *c)
{
  double rows = first_rows(p, c->threads);
  double tiles = 8.0 * ((double) fl_tile_packed(p->n, p->d) + p->n + p->m + p->d);
  double scratch = 8.0 * rows * (2.0 * p->d + 2.0 + FL_TILE_CLIENTS) + 64.0 * p->d +
                   12.0 * stream_rows_most() * (double) list_room(p);
  double lists = (double) p->m * sizeof(fl_live) + c->stream_lists;
  return tiles + fl_team(c->threads) * scratch + lists + 20.0 * p->m;
}

int fl_solve_dc_stream(const fl_problem *p, const fl_control *c, fl_result *res)
{
  fl_state s;
  fl_stream S;
  fl_problem none = *p;   /* fl_state_init would cover the initial ones pair by pair */
  none.ninitial = 0;
  if (fl_state_init(&s, &none, c->threads, FL_NO_MATRIX) != FL_OK) return FL_ERR_NOMEM;
  s.p = *p;
  fl_entry *entries = malloc(sizeof(fl_entry) * (size_t) p->m);
  int *js = malloc(sizeof(int) * (size_t) p->m);
  double *gain = malloc(sizeof(double) * (size_t) p->m);
  if (!entries || !js || !gain || fl_live_init_pool(&s, c->stream_lists) != FL_OK ||
      stream_init(&S, p, c->threads, first_rows(p, c->threads)) != FL_OK) {
    free(entries); free(js); free(gain); fl_state_free(&s);
    return FL_ERR_NOMEM;
  }
  int nopen = 0, status = stream_start(&s, &S, c, entries, js, gain, &nopen);
  fl_heap heap, *hp = &heap;
  fl_heap_build(&heap, entries, status == FL_OK ? nopen : 0);
  for (int round = 0; status == FL_OK && round < c->k; round++) {
    if (fl_interrupted(c)) { status = FL_INTERRUPTED; break; }
    if (fl_reached(c, fl_state_objective(&s))) break;
    refresh_top(&s, &S, &heap, round, js, gain);
    if (heap.size == 0) break;
    /* js and gain are free again: the round's keys as scratch */
    if (fl_celf_traced(round, c->k)) fl_celf_round(&s, &hp, 1, NULL, c->k, round, gain, res);
    fl_entry win = fl_heap_pop(&heap);
    stream_select(&s, &S, win.idx, win.key, res);
    fl_progress(c, round + 1, res->nselected, fl_state_objective(&s));
  }
  status = fl_celf_finish(&s, &hp, 1, c, gain, status, res);
  free(entries); free(js); free(gain);
  stream_free(&S);
  fl_state_free(&s);
  return status;
}
