/* btQuickprof.cpp's clock. odori builds Bullet with BT_NO_PROFILE, so the clock is never
   read for profiling; on wasm32 it reads 0 (src/wasm_libc.rs: gettimeofday). */
#ifndef ODORI_SYS_TIME_H
#define ODORI_SYS_TIME_H
#include "../odori_libc.h"
struct timeval {
    long long tv_sec;
    long tv_usec;
};
struct timezone;
ODORI_C_BEGIN
int gettimeofday(struct timeval *tv, struct timezone *tz);
ODORI_C_END
#endif
