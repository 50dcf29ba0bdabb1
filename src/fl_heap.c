#include "fl_heap.h"

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
  int i = h->size++;
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (!fl_entry_before(e, h->a[parent])) break;
    h->a[i] = h->a[parent];
    i = parent;
  }
  h->a[i] = e;
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
  int at = i;
  while (at > 0) {
    int parent = (at - 1) / 2;
    if (!fl_entry_before(e, h->a[parent])) break;
    h->a[at] = h->a[parent];
    at = parent;
  }
  h->a[at] = e;
  if (at == i) sift_down(h->a, h->size, i);
}
