#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stdint.h>

/// Allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by
/// the process so far; 0 forever where counting is not supported (not glibc).
uint64_t malloc_counter_allocations(void);

#endif
