//! The C library functions Bullet and the shim call, for `wasm32-unknown-unknown`, which has
//! none (the headers that declare them are `shim/wasm/`). Memory comes from Rust's global
//! allocator. Bullet's float maths is `bullet_math.rs`, on every target.

use std::alloc::{Layout, alloc, alloc_zeroed, dealloc, realloc as rust_realloc};
use std::ffi::{c_int, c_void};

/// Every block starts with a header that records its size (Rust's allocator needs the layout
/// to free); 16 bytes keep the caller's pointer aligned as C's malloc promises.
const HEADER: usize = 16;
const ALIGN: usize = 16;

fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(HEADER)?, ALIGN).ok()
}

/// # Safety
/// `block` is what the allocator returned for `size + HEADER` bytes, or null.
unsafe fn finish(block: *mut u8, size: usize) -> *mut c_void {
    if block.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the block holds HEADER bytes before the caller's part, aligned for usize.
    unsafe {
        block.cast::<usize>().write(size);
        block.add(HEADER).cast()
    }
}

/// # Safety
/// `ptr` came from this file's malloc/calloc/realloc and was not freed.
unsafe fn header(ptr: *mut c_void) -> (*mut u8, usize) {
    // SAFETY: as the caller promises, HEADER bytes before `ptr` hold the size.
    unsafe {
        let block = ptr.cast::<u8>().sub(HEADER);
        (block, block.cast::<usize>().read())
    }
}

/// C `malloc`.
///
/// # Safety
/// As C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    match layout(size) {
        // SAFETY: the layout's size is at least HEADER, never zero.
        Some(l) => unsafe { finish(alloc(l), size) },
        None => std::ptr::null_mut(),
    }
}

/// C `calloc`.
///
/// # Safety
/// As C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    let Some(total) = count.checked_mul(size) else {
        return std::ptr::null_mut();
    };
    match layout(total) {
        // SAFETY: non-zero layout.
        Some(l) => unsafe { finish(alloc_zeroed(l), total) },
        None => std::ptr::null_mut(),
    }
}

/// C `free`.
///
/// # Safety
/// As C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` came from malloc/calloc/realloc here, with this layout.
    unsafe {
        let (block, size) = header(ptr);
        dealloc(block, layout(size).unwrap_unchecked());
    }
}

/// C `realloc`.
///
/// # Safety
/// As C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn realloc(ptr: *mut c_void, new_size: usize) -> *mut c_void {
    // SAFETY: C's contract, which the caller keeps.
    unsafe {
        if ptr.is_null() {
            return malloc(new_size);
        }
        let Some(new_layout) = layout(new_size) else {
            return std::ptr::null_mut();
        };
        let (block, size) = header(ptr);
        let grown = rust_realloc(block, layout(size).unwrap_unchecked(), new_layout.size());
        finish(grown, new_size)
    }
}

/// C `abort`: Bullet's and the shim's way to stop on an impossible state (a failed
/// allocation in operator new, a pure virtual call).
#[unsafe(no_mangle)]
pub extern "C" fn abort() -> ! {
    std::process::abort()
}

/// btQuickprof.cpp's clock. odori builds Bullet with `BT_NO_PROFILE`, so nothing reads it
/// for profiling; wasm32-unknown-unknown has no clock to give, so it reads 0.
///
/// # Safety
/// `tv` is null or points at a `struct timeval` (shim/wasm/sys/time.h: i64, then i32).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gettimeofday(tv: *mut [u8; 16], _tz: *mut c_void) -> c_int {
    if !tv.is_null() {
        // SAFETY: as the caller promises.
        unsafe { tv.write([0; 16]) };
    }
    0
}

/// C `strcmp` (Bullet's serializer compares type names).
///
/// # Safety
/// Both are NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strcmp(a: *const u8, b: *const u8) -> c_int {
    // SAFETY: as the caller promises; usize::MAX bounds nothing but the NUL.
    unsafe { strncmp(a, b, usize::MAX) }
}

/// C `strncmp`.
///
/// # Safety
/// Both are NUL-terminated or at least `n` bytes long.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strncmp(a: *const u8, b: *const u8, n: usize) -> c_int {
    for i in 0..n {
        // SAFETY: within both strings (their NUL ends the loop first).
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y || x == 0 {
            return c_int::from(x) - c_int::from(y);
        }
    }
    0
}
