// The C++ runtime pieces Bullet and the shim need on wasm32-unknown-unknown (no libc++abi
// there): operator new/delete over malloc/free (src/wasm_libc.rs), std::nothrow, and the
// handler a pure virtual call would reach.

#include <new>
#include <stdlib.h>

namespace std {
const nothrow_t nothrow{};
}

// Without exceptions a failed allocation cannot throw std::bad_alloc: it stops the program,
// as it would with -fno-exceptions on any target.
void *operator new(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) abort();
    return p;
}
void *operator new[](size_t size) { return operator new(size); }
void *operator new(size_t size, const std::nothrow_t &) noexcept { return malloc(size ? size : 1); }
void operator delete(void *ptr) noexcept { free(ptr); }
void operator delete[](void *ptr) noexcept { free(ptr); }
void operator delete(void *ptr, size_t) noexcept { free(ptr); }
void operator delete[](void *ptr, size_t) noexcept { free(ptr); }

extern "C" void __cxa_pure_virtual() { abort(); }

// A function-local static with a destructor (btTypedConstraint's fixed body) registers that
// destructor here. A wasm module never exits, so nothing would ever run it: it is not kept.
extern "C" {
void *__dso_handle = &__dso_handle;
int __cxa_atexit(void (*)(void *), void *, void *) { return 0; }
}
