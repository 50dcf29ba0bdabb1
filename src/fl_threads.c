#include "fl_omp.h"

int fl_num_procs(void)
{
  return fl_par_procs();
}
