/* The tiled kernel behind fl_rbf_tile() and fl_rbf_tile_f(), written
 * once for any vector width and precision: kernel_tile.c includes this
 * file once per width and precision it compiles, with FL_TT (the type the
 * points are packed and multiplied in: double, or float for the
 * single-precision matrix), FL_TV (FL_TT values a vector), FL_TNV
 * (vectors of clients a tile row), FL_TILE_FN(name) (the name of each
 * definition at that width) and FL_TILE_ATTR (the attributes of the entry
 * points) defined.
 *
 * In float, each slice of FL_TILE_DEPTH coordinates is summed in float
 * registers and added to the double sums: the error of y.x is at most
 * FL_TILE_SLACK_F / 2 times |y||x| <= (|y|^2 + |x|^2) / 2 (the packing's
 * rounding included), and the squared distance is lowered by
 * FL_TILE_SLACK_F (|y|^2 + |x|^2) / 2 (and by the double roundings'
 * bound) before the exponential, so no similarity reads below the double
 * kernel's.
 *
 * Clients are packed in panels of FL_TNR = FL_TV FL_TNV, coordinate t of
 * client c of a panel at t FL_TNR + c; candidates in panels of
 * FL_TILE_ROWS, at t FL_TILE_ROWS + r.  A tile of FL_TILE_ROWS candidates
 * by a panel of clients keeps its FL_TILE_ROWS FL_TNV sums in registers:
 * per coordinate, FL_TNV loads and FL_TILE_ROWS broadcasts feed
 * FL_TILE_ROWS FL_TNV multiply-adds.  Each sum is one lane's running sum
 * over the coordinates in order, whatever the width or the tile, as the
 * squared norms are (fl_tile_norms). */
#define FL_TNR (FL_TV * FL_TNV)
#define tile_dv FL_TILE_FN(tile_dv)
#define tile_ov FL_TILE_FN(tile_ov)
#define pack_clients FL_TILE_FN(pack_clients)
#define pack_candidates FL_TILE_FN(pack_candidates)
#define micro_tile FL_TILE_FN(micro_tile)
#define rbf_tile FL_TILE_FN(rbf_tile)
#define panel_width FL_TILE_FN(panel_width)

FL_TILE_ATTR int panel_width(void)
{
  return FL_TNR;
}

/* n rows (d columns) minus org into panels of FL_TNR, zeros past n. */
FL_TILE_ATTR void pack_clients(const double *x, int n, int d, const double *org, FL_TT *xp)
{
  for (int p = 0; p < n; p += FL_TNR, xp += (size_t) FL_TNR * d)
    for (int c = 0; c < FL_TNR; c++) {
      const double *row = x + (size_t) (p + c) * d;
      for (int t = 0; t < d; t++)
        xp[(size_t) t * FL_TNR + c] = (FL_TT) (p + c < n ? row[t] - org[t] : 0.0);
    }
}

FL_TILE_ATTR void pack_candidates(const double *y, int m, int d, const double *org,
                                  FL_TT *yp)
{
  for (int p = 0; p < m; p += FL_TILE_ROWS, yp += (size_t) FL_TILE_ROWS * d)
    for (int r = 0; r < FL_TILE_ROWS; r++) {
      const double *row = y + (size_t) (p + r) * d;
      for (int t = 0; t < d; t++)
        yp[(size_t) t * FL_TILE_ROWS + r] = (FL_TT) (p + r < m ? row[t] - org[t] : 0.0);
    }
}

#if defined(__GNUC__)
typedef FL_TT tile_dv __attribute__((vector_size(sizeof(FL_TT) * FL_TV), aligned(sizeof(FL_TT)),
                                     may_alias));
typedef double tile_ov __attribute__((vector_size(8 * FL_TV), aligned(8), may_alias));

/* out[r * ldo + c] (+)= the dot products over kc coordinates of the
 * candidate panel yp and the client panel xp, r < mr, c < nc; added to
 * out unless first. */
static inline FL_INLINE void micro_tile(const FL_TT *restrict yp, const FL_TT *restrict xp,
                                        int kc, int first, double *out, size_t ldo, int mr,
                                        int nc)
{
  tile_dv acc[FL_TILE_ROWS][FL_TNV];
#pragma GCC unroll 8
  for (int r = 0; r < FL_TILE_ROWS; r++)
#pragma GCC unroll 4
    for (int v = 0; v < FL_TNV; v++) acc[r][v] = (tile_dv) { 0 };
  for (int t = 0; t < kc; t++, xp += FL_TNR, yp += FL_TILE_ROWS) {
    tile_dv xv[FL_TNV];
#pragma GCC unroll 4
    for (int v = 0; v < FL_TNV; v++) xv[v] = *(const tile_dv *) (xp + v * FL_TV);
#pragma GCC unroll 8
    for (int r = 0; r < FL_TILE_ROWS; r++) {
      tile_dv yb = yp[r] - (tile_dv) { 0 };   /* a broadcast: x - 0 is x */
#pragma GCC unroll 4
      for (int v = 0; v < FL_TNV; v++) acc[r][v] += yb * xv[v];
    }
  }
  for (int r = 0; r < mr; r++) {
    double *o = out + (size_t) r * ldo;
    if (nc == FL_TNR) {
#pragma GCC unroll 4
      for (int v = 0; v < FL_TNV; v++) {
        tile_ov *ov = (tile_ov *) (o + v * FL_TV), sum = __builtin_convertvector(acc[r][v], tile_ov);
        if (first) *ov = sum;
        else *ov += sum;
      }
      continue;
    }
    for (int c = 0; c < nc; c++) {
      double s = acc[r][c / FL_TV][c % FL_TV];
      o[c] = first ? s : o[c] + s;
    }
  }
}
#else
static inline void micro_tile(const FL_TT *restrict yp, const FL_TT *restrict xp, int kc,
                              int first, double *out, size_t ldo, int mr, int nc)
{
  for (int r = 0; r < mr; r++)
    for (int c = 0; c < nc; c++) {
      FL_TT s = 0;
      for (int t = 0; t < kc; t++) s += yp[(size_t) t * FL_TILE_ROWS + r] * xp[(size_t) t * FL_TNR + c];
      out[(size_t) r * ldo + c] = first ? s : out[(size_t) r * ldo + c] + s;
    }
}
#endif

/* The dot products of the mc packed candidates yp and nc packed clients
 * xp into out, by slices of FL_TILE_DEPTH coordinates (a slice of the
 * clients' panel stays in L1 while the block's candidates meet it), then
 * the similarity of each row at once: exp(-max(0, d2) inv2s2), or for
 * unit vectors (cosine) their cosine 1 - d2 / 2 where positive. */
FL_TILE_ATTR void rbf_tile(const FL_TT *yp, const double *yn, int mc, const FL_TT *xp,
                           const double *xn, int nc, int d, double inv2s2, int cosine,
                           double *out, size_t ldo)
{
  for (int t0 = 0; t0 < d; t0 += FL_TILE_DEPTH) {
    int kc = d - t0 < FL_TILE_DEPTH ? d - t0 : FL_TILE_DEPTH;
    for (int c = 0; c < nc; c += FL_TNR)
      for (int a = 0; a < mc; a += FL_TILE_ROWS)
        micro_tile(yp + (size_t) a * d + (size_t) t0 * FL_TILE_ROWS,
                   xp + (size_t) c * d + (size_t) t0 * FL_TNR, kc, t0 == 0,
                   out + (size_t) a * ldo + c, ldo,
                   mc - a < FL_TILE_ROWS ? mc - a : FL_TILE_ROWS,
                   nc - c < FL_TNR ? nc - c : FL_TNR);
  }
#if FL_TILE_SINGLE
  /* d2 lowered by the float slices' error bound and by the double
   * roundings, relative to yn + xn: of adding the d / FL_TILE_DEPTH
   * slices' sums, and 8 units of 2^-53 for forming d2 */
  const double keep = 1.0 - 0.5 * FL_TILE_SLACK_F - (d / FL_TILE_DEPTH + 8) * 0x1p-53;
#endif
  for (int a = 0; a < mc; a++) {
    double *o = out + (size_t) a * ldo;
    if (cosine) {
      FL_SIMD
      for (int i = 0; i < nc; i++) o[i] = fl_positive(1.0 - 0.5 * (yn[a] + xn[i] - 2.0 * o[i]));
      continue;
    }
#if FL_TILE_SINGLE
    FL_SIMD
    for (int i = 0; i < nc; i++)
      o[i] = fl_exp_neg(fl_positive(keep * (yn[a] + xn[i]) - 2.0 * o[i]) * inv2s2);
#else
    FL_SIMD
    for (int i = 0; i < nc; i++)
      o[i] = fl_exp_neg(fl_positive(yn[a] + xn[i] - 2.0 * o[i]) * inv2s2);
#endif
  }
}

#undef FL_TNR
#undef tile_dv
#undef tile_ov
#undef pack_clients
#undef pack_candidates
#undef micro_tile
#undef rbf_tile
#undef panel_width
