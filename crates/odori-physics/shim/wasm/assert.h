/* Bullet's btAssert is assert; odori builds Bullet with NDEBUG, where it checks nothing. */
#ifndef ODORI_ASSERT_H
#define ODORI_ASSERT_H
#ifdef NDEBUG
#define assert(x) ((void)0)
#else
#include <stdlib.h>
#define assert(x) ((x) ? (void)0 : abort())
#endif
#endif
