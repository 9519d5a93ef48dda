/* Force-included (-include) before every Bullet and shim file, on every target: Bullet's
 * single-precision maths (btSin, btAcos, btAtan2, btPow, ... in btScalar.h) call these
 * odori_* functions instead of the C library's, and they are Rust (src/bullet_math.rs: the
 * pure-Rust `libm` crate, a port of musl's). The C libraries disagree in the last bit of a
 * few functions (glibc's acosf or powf against musl's), and a chaotic system turns a
 * last-bit difference at frame 0 into a visible one a second later; with one implementation
 * a wasm32 build steps exactly as a native one does. sqrtf and fabsf stay as they are: both
 * are exact everywhere. */
#ifndef ODORI_MATH_H_FORCED
#define ODORI_MATH_H_FORCED
#include <math.h>
#ifdef __cplusplus
extern "C" {
#endif
float odori_sinf(float);
float odori_cosf(float);
float odori_tanf(float);
float odori_asinf(float);
float odori_acosf(float);
float odori_atanf(float);
float odori_atan2f(float, float);
float odori_expf(float);
float odori_logf(float);
float odori_powf(float, float);
float odori_fmodf(float, float);
#ifdef __cplusplus
}
#endif
#define sinf odori_sinf
#define cosf odori_cosf
#define tanf odori_tanf
#define asinf odori_asinf
#define acosf odori_acosf
#define atanf odori_atanf
#define atan2f odori_atan2f
#define expf odori_expf
#define logf odori_logf
#define powf odori_powf
#define fmodf odori_fmodf
#endif
