// Counts allocation calls by defining the allocation functions in the executable: glibc looks
// them up there first (libswiftCore and Foundation included). malloc, calloc and realloc forward
// to the next definition (a preloaded heap profiler's, such as heaptrack's) or glibc's own; the
// aligned ones go to glibc's, so a profiler does not see those.
// One relaxed atomic add per call; the benchmark is single-threaded anyway.
#define _GNU_SOURCE
#include "MallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static uint64_t allocations;

static inline void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

uint64_t malloc_counter_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

// The next definitions, looked up once; while dlsym itself allocates, glibc's serve.
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static __thread int resolving;

static void resolve(void) {
    if (next_malloc || resolving) return;
    resolving = 1;
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    resolving = 0;
}

void *malloc(size_t size) {
    count();
    resolve();
    return next_malloc && !resolving ? next_malloc(size) : __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count();
    resolve();
    return next_calloc && !resolving ? next_calloc(count_, size) : __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count();
    resolve();
    return next_realloc && !resolving ? next_realloc(pointer, size) : __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}
#else
uint64_t malloc_counter_allocations(void) { return 0; }
#endif

#if defined(__GLIBC__)
#include <malloc.h>
size_t malloc_counter_heap_in_use(void) { return mallinfo2().uordblks; }
void malloc_counter_trim(void) { malloc_trim(0); }
size_t malloc_counter_heap_free(void) { return mallinfo2().fordblks; }
#else
size_t malloc_counter_heap_in_use(void) { return 0; }
void malloc_counter_trim(void) {}
size_t malloc_counter_heap_free(void) { return 0; }
#endif
