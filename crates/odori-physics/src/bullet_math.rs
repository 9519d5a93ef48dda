//! The single-precision maths Bullet calls (`shim/odori_math.h` renames `sinf` … `fmodf` to
//! these), from the pure-Rust `libm` crate on every target: native and wasm32 builds then
//! compute the same bits, where the platforms' C libraries differ in the last bit of a few
//! functions and a chaotic system magnifies that within a second.

macro_rules! maths {
    ($($export:ident = $name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("Bullet's `", stringify!($name), "` (`libm::", stringify!($name), "`).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $export($($arg: $ty),*) -> f32 {
            libm::$name($($arg),*)
        }
    )*};
}

maths! {
    odori_sinf = sinf(x: f32);
    odori_cosf = cosf(x: f32);
    odori_tanf = tanf(x: f32);
    odori_asinf = asinf(x: f32);
    odori_acosf = acosf(x: f32);
    odori_atanf = atanf(x: f32);
    odori_atan2f = atan2f(y: f32, x: f32);
    odori_expf = expf(x: f32);
    odori_logf = logf(x: f32);
    odori_powf = powf(x: f32, y: f32);
    odori_fmodf = fmodf(x: f32, y: f32);
}
