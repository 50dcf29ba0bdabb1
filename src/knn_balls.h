/* Points grouped in balls around k-means centres: each ball knows its
 * radius and each member its distance to the centre, so the triangle
 * inequality bounds the distance from any query to a whole ball
 * (||q - c|| - radius) or to one member (| ||q - c|| - ||x - c|| |)
 * without touching the points.  Used by knn.c and stochastic.c. */
#ifndef FL_BALLS_H
#define FL_BALLS_H

typedef struct {
  int nball, d;
  double *centre;     /* nball x d */
  double *radius;     /* nball: distance of the farthest member */
  int *start;         /* nball + 1: ball c is member[start[c] .. start[c+1]-1] */
  int *member;        /* n point indices grouped by ball, increasing within one */
  double *to_centre;  /* n: distance of member[t] to its centre */
  double *xs;         /* n x d: the points in member order, so a ball is
                       * scanned as one contiguous stretch of memory */
} fl_balls;

/* Group the n points x (n x d, row-major) into at most nball balls around
 * the centres of fl_kmeans on a strided sample.  Deterministic; threads
 * split the distance computations.  On failure all is freed. */
int fl_balls_build(fl_balls *b, const double *x, int n, int d, int nball, int threads);
void fl_balls_free(fl_balls *b);
/* Bytes fl_balls_build allocates, temporaries and the copy xs included. */
double fl_balls_bytes(int n, int d, int nball, int threads);

/* Relative slack of every pruning test: the bounds come from rounded
 * square roots, so something is skipped only when its lower bound beats
 * the limit by far more than any rounding error. */
#define FL_BALLS_SLACK 1e-9

/* Is the lower bound lb (a difference of distances that sum to scale)
 * certainly above the distance dist? */
static inline int fl_balls_beyond(double lb, double scale, double dist)
{
  return lb - FL_BALLS_SLACK * scale > dist * (1.0 + FL_BALLS_SLACK);
}

#endif
