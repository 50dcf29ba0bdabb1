/* Deterministic k-means (k-means++ seeding from a seed, then Lloyd). */
#ifndef FL_KMEANS_H
#define FL_KMEANS_H

/* Cluster the n rows of x (n x d, row-major) into K groups.  Fills assign
 * (n) and centers (K x d).  The result depends only on the input and seed:
 * assignments are independent per point and centers are summed in fixed
 * blocks of points, whatever the thread count.
 * Returns an FL_* status (FL_ERR_NOMEM on allocation failure). */
int fl_kmeans(const double *x, int n, int d, int K, unsigned int seed,
              int threads, int *assign, double *centers);
/* Memory fl_kmeans() takes for n points of d coordinates besides what
 * its caller sizes (assignments, bounds, center sums): the seeding's
 * distances and the threads' blocks of points. */
double fl_kmeans_bytes(int n, int d, int threads);

#endif
