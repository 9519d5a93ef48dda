/* Bullet prints diagnostics (leak reports, warnings) with printf; wasm32-unknown-unknown
   has no standard output, so they are formatted nowhere and dropped. */
#ifndef ODORI_STDIO_H
#define ODORI_STDIO_H
#include "odori_libc.h"
static inline int odori_printf_dropped(const char *format, ...) {
    (void)format;
    return 0;
}
#define printf odori_printf_dropped
#endif
