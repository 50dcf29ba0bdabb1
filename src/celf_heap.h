/* Binary max-heap of CELF entries, ordered by gain, then lowest index. */
#ifndef FL_HEAP_H
#define FL_HEAP_H

typedef struct {
  double key;   /* marginal gain, or an upper bound on it when stale */
  int idx;      /* candidate */
  int round;    /* round whose coverage the key was computed against */
} fl_entry;

typedef struct {
  fl_entry *a;
  int size;
} fl_heap;

/* Does entry a come before b?  Ties go to the lowest index, as in greedy. */
static inline int fl_entry_before(fl_entry a, fl_entry b)
{
  return a.key > b.key || (a.key == b.key && a.idx < b.idx);
}

/* Turn a[0..size-1] (storage owned by the caller) into a heap. */
void fl_heap_build(fl_heap *h, fl_entry *a, int size);
void fl_heap_push(fl_heap *h, fl_entry e);
fl_entry fl_heap_pop(fl_heap *h);
/* Entry i becomes e, moved up or down to its place. */
void fl_heap_update(fl_heap *h, int i, fl_entry e);

#endif
