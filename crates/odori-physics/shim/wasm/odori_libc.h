/* Shared by the C headers here: C linkage for their declarations. */
#ifndef ODORI_LIBC_H
#define ODORI_LIBC_H
#include <stddef.h>
#ifdef __cplusplus
#define ODORI_C_BEGIN extern "C" {
#define ODORI_C_END }
#else
#define ODORI_C_BEGIN
#define ODORI_C_END
#endif
#endif
