/* splitmix64 (Steele, Lea and Flood 2014): a tiny seeded generator with the
 * same stream on every platform, so sampled runs repeat exactly for a seed
 * whatever the thread count.  Draw only on the main thread. */
#ifndef FL_RNG_H
#define FL_RNG_H

#include <stdint.h>

typedef struct {
  uint64_t state;
} fl_rng;

static inline void fl_rng_seed(fl_rng *r, uint64_t seed)
{
  r->state = seed;
}

static inline uint64_t fl_rng_next(fl_rng *r)
{
  uint64_t z = (r->state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Uniform on 0..n-1 (n >= 1); the modulo bias is below 2^-32 for n < 2^31. */
static inline int fl_rng_below(fl_rng *r, int n)
{
  return (int) (fl_rng_next(r) % (uint64_t) n);
}

#endif
