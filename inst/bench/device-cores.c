/* Weak-scaling probe of a machine's cores (inst/bench/results/device-cores.txt):
 * every thread does the same compute-bound work (an L1-resident, vectorisable
 * loop), so the wall time stays flat while each thread has a core to itself
 * and grows once threads share cores or the cores slow down.
 *
 *   gcc -O2 -fopenmp device-cores.c -o device-cores -lm
 *   for t in 1 2 4 8 16; do ./device-cores $t 6000000; done
 *   taskset -c 0,1 ./device-cores 2 6000000        # two given CPUs */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(int argc, char **argv)
{
  if (argc < 3) return 2;
  int T = atoi(argv[1]);
  long iters = atol(argv[2]);
  double t0 = omp_get_wtime(), total = 0.0;
#pragma omp parallel num_threads(T) reduction(+:total)
  {
    double a[256], s = 0.0;
    for (int i = 0; i < 256; i++) a[i] = i * 1e-3 + omp_get_thread_num();
    for (long it = 0; it < iters; it++) {
#pragma omp simd reduction(+:s)
      for (int i = 0; i < 256; i++) {
        double x = a[i] * 0.999 + 1e-3;
        a[i] = x;
        s += x * x;
      }
    }
    total += s;
  }
  printf("%d %.3f %g\n", T, omp_get_wtime() - t0, total);
  return 0;
}
