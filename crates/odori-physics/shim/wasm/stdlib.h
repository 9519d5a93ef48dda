/* Memory allocation for Bullet on wasm32 (src/wasm_libc.rs, over Rust's allocator). */
#ifndef ODORI_STDLIB_H
#define ODORI_STDLIB_H
#include "odori_libc.h"
ODORI_C_BEGIN
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void *realloc(void *ptr, size_t size);
void free(void *ptr);
void abort(void) __attribute__((noreturn));
ODORI_C_END
#endif
