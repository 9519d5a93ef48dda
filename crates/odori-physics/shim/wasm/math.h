/* Single-precision maths for Bullet on wasm32 (btScalar.h's btSin, btSqrt, ...). The
   operations wasm has as instructions are clang builtins; the rest are src/wasm_libc.rs. */
#ifndef ODORI_MATH_H
#define ODORI_MATH_H
#include "odori_libc.h"
ODORI_C_BEGIN
float sinf(float);
float cosf(float);
float tanf(float);
float asinf(float);
float acosf(float);
float atanf(float);
float atan2f(float, float);
float expf(float);
float logf(float);
float powf(float, float);
float fmodf(float, float);
double sin(double);
double cos(double);
double sqrt(double);
double fabs(double);
double atan2(double, double);
double pow(double, double);
ODORI_C_END
static inline float sqrtf(float x) { return __builtin_sqrtf(x); }
static inline float fabsf(float x) { return __builtin_fabsf(x); }
static inline float floorf(float x) { return __builtin_floorf(x); }
static inline float ceilf(float x) { return __builtin_ceilf(x); }
static inline double floor(double x) { return __builtin_floor(x); }
static inline double ceil(double x) { return __builtin_ceil(x); }
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#endif
