/* The tiled kernel of the exact modes' matrix and the exhaustive pass: a
 * block of candidates against a block of clients, d2 = |y|^2 + |x|^2 -
 * 2 y.x from squared norms and dot products computed as in a matrix
 * product (register tiles over packed panels, kernel_tile.h), then
 * exp(-d2 inv2s2) over each row of the block at once.  Compiled for
 * x86-64-v3 and x86-64-v4 (picked by fl_wide_vectors()) as the other
 * block kernels (measured: inst/bench/results/tunables.md,
 * FL_TILE_DEPTH; inst/bench/kernel-peak.c).
 *
 * Every dot product, the squared norms included, is one running sum over
 * the coordinates in order, so a point's distance to itself is 0 exactly
 * and equal points get equal bits; a negative d2 (rounding, near points)
 * is taken as 0.  Points are taken relative to an origin org (the
 * clients' mean): the norms, and the rounding of d2, on the scale of the
 * distances however far the data sit from 0. */
#include "kernel.h"
#include "fl_tune.h"

/* The double kernel's vectors: 8 lanes at AVX-512, else 4 (AVX2 clones)
 * or 2 (SSE2); the float kernel's twice as many. */
#if defined(FL_HAVE_CLONES) || defined(__AVX__) || defined(__clang__)
#define FL_NARROW_LANES 4
#else
#define FL_NARROW_LANES 2
#endif

#define FL_TT double
#define FL_TILE_SINGLE 0
#if FL_WIDE
#define FL_TV 8
#define FL_TNV 4
#define FL_TILE_FN(name) name##_wide
#define FL_TILE_ATTR static FL_WIDE_TARGET
#include "kernel_tile.h"
#undef FL_TV
#undef FL_TNV
#undef FL_TILE_FN
#undef FL_TILE_ATTR
#endif
#define FL_TV FL_NARROW_LANES
#define FL_TNV 2
#define FL_TILE_FN(name) name##_narrow
#define FL_TILE_ATTR static FL_CLONES
#include "kernel_tile.h"
#undef FL_TV
#undef FL_TNV
#undef FL_TILE_FN
#undef FL_TILE_ATTR
#undef FL_TT
#undef FL_TILE_SINGLE

/* Twice the bound on a float slice's relative error, gamma_{n+3} (n =
 * FL_TILE_DEPTH products, the packing's two roundings and the FMA
 * accumulation), u = 2^-24. */
#define FL_TILE_SLACK_F \
  (2.0 * (FL_TILE_DEPTH + 3) * 0x1p-24 / (1.0 - (FL_TILE_DEPTH + 3) * 0x1p-24))
#define FL_TT float
#define FL_TILE_SINGLE 1
#if FL_WIDE
#define FL_TV 16
#define FL_TNV 4
#define FL_TILE_FN(name) name##_wide_f
#define FL_TILE_ATTR static FL_WIDE_TARGET
#include "kernel_tile.h"
#undef FL_TV
#undef FL_TNV
#undef FL_TILE_FN
#undef FL_TILE_ATTR
#endif
#define FL_TV (2 * FL_NARROW_LANES)
#define FL_TNV 2
#define FL_TILE_FN(name) name##_narrow_f
#define FL_TILE_ATTR static FL_CLONES
#include "kernel_tile.h"

#if FL_WIDE
#define FL_TILE_CALL(name, ...) \
  (fl_wide_vectors() ? name##_wide(__VA_ARGS__) : name##_narrow(__VA_ARGS__))
#define FL_TILE_CALL_F(name, ...) \
  (fl_wide_vectors() ? name##_wide_f(__VA_ARGS__) : name##_narrow_f(__VA_ARGS__))
#else
#define FL_TILE_CALL(name, ...) name##_narrow(__VA_ARGS__)
#define FL_TILE_CALL_F(name, ...) name##_narrow_f(__VA_ARGS__)
#endif

int fl_tile_width(void)
{
  return FL_TILE_CALL(panel_width);
}

size_t fl_tile_packed(int n, int d)
{
  return ((size_t) n + (size_t) fl_tile_width() + FL_TILE_ROWS) * (size_t) d;
}

void fl_tile_pack_clients(const double *x, int n, int d, const double *org, double *xp)
{
  FL_TILE_CALL(pack_clients, x, n, d, org, xp);
}

void fl_tile_pack_candidates(const double *y, int m, int d, const double *org, double *yp)
{
  FL_TILE_CALL(pack_candidates, y, m, d, org, yp);
}

void fl_rbf_tile(const double *yp, const double *yn, int mc, const double *xp,
                 const double *xn, int nc, int d, double inv2s2, int cosine, double *out,
                 size_t ldo)
{
  FL_TILE_CALL(rbf_tile, yp, yn, mc, xp, xn, nc, d, inv2s2, cosine, out, ldo);
}

int fl_tile_width_f(void)
{
  return FL_TILE_CALL_F(panel_width);
}

size_t fl_tile_packed_f(int n, int d)
{
  return ((size_t) n + (size_t) fl_tile_width_f() + FL_TILE_ROWS) * (size_t) d;
}

void fl_tile_pack_clients_f(const double *x, int n, int d, const double *org, float *xp)
{
  FL_TILE_CALL_F(pack_clients, x, n, d, org, xp);
}

void fl_tile_pack_candidates_f(const double *y, int m, int d, const double *org, float *yp)
{
  FL_TILE_CALL_F(pack_candidates, y, m, d, org, yp);
}

void fl_rbf_tile_f(const float *yp, const double *yn, int mc, const float *xp,
                   const double *xn, int nc, int d, double inv2s2, double *out, size_t ldo)
{
  FL_TILE_CALL_F(rbf_tile, yp, yn, mc, xp, xn, nc, d, inv2s2, 0, out, ldo);
}

/* A running sum in order over each slice of FL_TILE_DEPTH coordinates,
 * the slices' sums added in order, as the tiles sum. */
FL_CLONES void fl_tile_norms(const double *x, int n, int d, const double *org, double *out)
{
  for (int i = 0; i < n; i++) {
    const double *row = x + (size_t) i * d;
    double total = 0.0;
    for (int t0 = 0; t0 < d; t0 += FL_TILE_DEPTH) {
      int end = d - t0 < FL_TILE_DEPTH ? d : t0 + FL_TILE_DEPTH;
      double s = 0.0;
      for (int t = t0; t < end; t++) {
        double v = row[t] - org[t];
        s += v * v;
      }
      total = t0 ? total + s : s;
    }
    out[i] = total;
  }
}

/* Candidates whose slices of FL_TILE_DEPTH coordinates fit `doubles`,
 * a multiple of FL_TILE_ROWS, at most max_rows. */
static int block_rows(int d, int doubles, int max_rows)
{
  int depth = d < FL_TILE_DEPTH ? d : FL_TILE_DEPTH;
  int mc = doubles / (depth > 0 ? depth : 1);
  mc -= mc % FL_TILE_ROWS;
  if (mc < FL_TILE_ROWS) mc = FL_TILE_ROWS;
  return mc < max_rows ? mc : max_rows;
}

int fl_tile_candidates(int d)
{
  return block_rows(d, FL_TILE_DOUBLES, FL_TILE_MAX_ROWS);
}

int fl_tile_candidates_for(int d, int m, int team)
{
  int mc = fl_tile_candidates(d);
  int share = (m + team - 1) / team;   /* a block for every thread */
  share += (FL_TILE_ROWS - share % FL_TILE_ROWS) % FL_TILE_ROWS;
  return share < FL_TILE_ROWS ? FL_TILE_ROWS : share < mc ? share : mc;
}

int fl_tile_leaf_candidates(int d)
{
  return block_rows(d, FL_TILE_LEAF_DOUBLES, FL_TILE_LEAF_MAX_ROWS);
}
