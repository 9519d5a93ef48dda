/* Byte functions for Bullet on wasm32 (Rust's compiler-builtins provides them). */
#ifndef ODORI_STRING_H
#define ODORI_STRING_H
#include "odori_libc.h"
ODORI_C_BEGIN
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
ODORI_C_END
#endif
