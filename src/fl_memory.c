/* A block written once per solve costs a page fault per 4 KB page on its
 * first touch.  On virtual machines that map guest pages in software the
 * fault is dear, a noticeable share of a matrix-free solve.  Linux backs a range by transparent huge pages when
 * asked (madvise, its default mode on Debian and Ubuntu); elsewhere these
 * are plain malloc() and calloc(). */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "fl_memory.h"

#ifdef __linux__
#include <sys/mman.h>
#endif
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define FL_HUGE_PAGE ((size_t) 2 << 20)
#endif

void fl_advise_huge(void *p, size_t bytes)
{
#ifdef FL_HUGE_PAGE
  uintptr_t lo = ((uintptr_t) p + FL_HUGE_PAGE - 1) & ~(uintptr_t) (FL_HUGE_PAGE - 1);
  uintptr_t hi = ((uintptr_t) p + bytes) & ~(uintptr_t) (FL_HUGE_PAGE - 1);
  if (hi > lo) (void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);
#else
  (void) p; (void) bytes;
#endif
}

void *fl_alloc_large(size_t count, size_t size, int zero)
{
  if (size > 0 && count > SIZE_MAX / size) return NULL;
  size_t bytes = count * size;
#ifdef FL_HUGE_PAGE
  /* Whole huge pages, from a huge page's start: a block of a few MB gets
   * them all. */
  if (bytes >= FL_HUGE_PAGE) {
    size_t whole = (bytes + FL_HUGE_PAGE - 1) / FL_HUGE_PAGE * FL_HUGE_PAGE;
    void *p = NULL;
    if (whole < bytes || posix_memalign(&p, FL_HUGE_PAGE, whole) != 0) return NULL;
    fl_advise_huge(p, whole);
    if (zero) memset(p, 0, bytes);
    return p;
  }
#endif
  return zero ? calloc(count, size) : malloc(bytes);
}
