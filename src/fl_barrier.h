/* Sense-reversing barrier for a small group of threads (mode nhpc).  The
 * count and the sense live on separate cache lines so that arriving threads
 * (writing count) do not disturb the waiting ones (reading sense). */
#ifndef FL_BARRIER_H
#define FL_BARRIER_H

#include "fl_omp.h"   /* FL_LINE */

typedef struct {
  int count;
  char pad1[FL_LINE - sizeof(int)];
  int sense;
  char pad2[FL_LINE - sizeof(int)];
} fl_barrier;

void fl_barrier_init(fl_barrier *b);
/* Wait until nthreads threads of the group have arrived.  Every arrival
 * and release is a seq_cst atomic (a full flush), so writes made before the
 * barrier are visible to every thread of the group after it. */
void fl_barrier_wait(fl_barrier *b, int nthreads);

#endif
