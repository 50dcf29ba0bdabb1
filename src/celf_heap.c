#include "celf_heap.h"

static void sift_down(fl_entry *a, int size, int i)
{
  fl_entry e = a[i];
  for (;;) {
    long long child = 2LL * i + 1;   /* 2 i + 1 overflows an int past 2^30 entries */
    if (child >= size) break;
    if (child + 1 < size && fl_entry_before(a[child + 1], a[child])) child++;
    if (!fl_entry_before(a[child], e)) break;
    a[i] = a[child];
    i = (int) child;
  }
  a[i] = e;
}

/* e into the hole at i, moved up past the entries it comes before;
 * returns where it lands. */
static int sift_up(fl_entry *a, int i, fl_entry e)
{
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (!fl_entry_before(e, a[parent])) break;
    a[i] = a[parent];
    i = parent;
  }
  a[i] = e;
  return i;
}

void fl_heap_build(fl_heap *h, fl_entry *a, int size)
{
  h->a = a;
  h->size = size;
  for (int i = size / 2 - 1; i >= 0; i--) sift_down(a, size, i);
}

/* The caller guarantees capacity: a heap never holds more entries than it
 * was built with, since entries are popped before being pushed back. */
void fl_heap_push(fl_heap *h, fl_entry e)
{
  sift_up(h->a, h->size++, e);
}

fl_entry fl_heap_pop(fl_heap *h)
{
  fl_entry top = h->a[0];
  h->a[0] = h->a[--h->size];
  if (h->size > 0) sift_down(h->a, h->size, 0);
  return top;
}

void fl_heap_update(fl_heap *h, int i, fl_entry e)
{
  if (sift_up(h->a, i, e) == i) sift_down(h->a, h->size, i);
}
