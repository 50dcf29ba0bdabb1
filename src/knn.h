/* Exact k-nearest-neighbour search of candidates for query points, and the
 * sparse kNN RBF similarity built from it (no n x m matrix is ever formed). */
#ifndef FL_KNN_H
#define FL_KNN_H

/* For each of the n query points x (n x d, row-major) find its k nearest
 * of the m candidates y (m x d, row-major), nearest first, ties to the
 * lowest candidate index: nbr (n x k, 0-based) and their squared distances
 * dist2 (n x k).  Exact for any thread count and always the same answer.
 * Returns FL_OK, FL_ERR_NOMEM or FL_ERR_ARG (k outside 1..m). */
int fl_knn(const double *x, int n, const double *y, int m, int d, int k,
           int threads, int *nbr, double *dist2);

/* Working memory of fl_knn in bytes (outputs excluded). */
double fl_knn_bytes(int m, int d, int k, int threads);

/* The n x m compressed-sparse-column similarity with s_ij = exp(-dist2 *
 * inv2s2) for the k neighbours j of each i: p (m + 1), i and x (n k each),
 * rows increasing within each column. */
int fl_knn_csc(int n, int m, int k, const int *nbr, const double *dist2,
               double inv2s2, int *p, int *i, double *x);

#endif
