#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stdint.h>

/// Allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by
/// the process so far; 0 forever where counting is not supported (not glibc).
uint64_t malloc_counter_allocations(void);

#endif

#ifndef MALLOC_COUNTER_HEAP_H
#define MALLOC_COUNTER_HEAP_H
#include <stddef.h>
/// Heap bytes allocated and not yet freed (glibc's mallinfo2 uordblks); 0 elsewhere.
size_t malloc_counter_heap_in_use(void);
/// Gives freed heap memory back to the system (glibc's malloc_trim); no-op elsewhere.
void malloc_counter_trim(void);
/// Freed bytes the allocator keeps in its arenas (glibc's fordblks): fragmentation; 0 elsewhere.
size_t malloc_counter_heap_free(void);
#endif
