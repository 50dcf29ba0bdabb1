#include "fl_omp.h"

int fl_num_procs(void)
{
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}
