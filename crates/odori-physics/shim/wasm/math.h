/* Maths for Bullet on wasm32: the operations wasm has as instructions, as clang builtins.
   Bullet's sinf, acosf, powf, ... are renamed by ../odori_math.h (force-included on every
   target) to src/bullet_math.rs. */
#ifndef ODORI_MATH_H
#define ODORI_MATH_H
#include "odori_libc.h"
static inline float sqrtf(float x) { return __builtin_sqrtf(x); }
static inline float fabsf(float x) { return __builtin_fabsf(x); }
static inline float floorf(float x) { return __builtin_floorf(x); }
static inline float ceilf(float x) { return __builtin_ceilf(x); }
static inline double fabs(double x) { return __builtin_fabs(x); }
static inline double sqrt(double x) { return __builtin_sqrt(x); }
static inline double floor(double x) { return __builtin_floor(x); }
static inline double ceil(double x) { return __builtin_ceil(x); }
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#endif
