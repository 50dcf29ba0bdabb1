/* Blocks of megabytes (the points' copies, the similarity matrix): backed
 * by huge pages where the system offers them on request. */
#ifndef FL_MEMORY_H
#define FL_MEMORY_H

#include <stddef.h>

/* count x size bytes, zeroed if zero, freed by free(); NULL on failure
 * (as malloc, including count x size overflowing). */
void *fl_alloc_large(size_t count, size_t size, int zero);

/* Ask for huge pages under the whole 2 MB pages of [p, p + bytes), a
 * block not yet written (one R allocated, say).  A hint: nothing changes
 * where the system has no such request. */
void fl_advise_huge(void *p, size_t bytes);

#endif
