//! Which kernel the CPU path runs, decided once per process.

/// The environment variable that turns the AVX2 kernel off (`ODORI_DEFORM_SIMD=0`), to compare
/// kernels or rule one out while debugging.
pub const SIMD_VAR: &str = "ODORI_DEFORM_SIMD";

/// True when the AVX2 + FMA kernel runs: the CPU has both and the variable does not say 0.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> bool {
    static USE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USE.get_or_init(|| {
        std::env::var(SIMD_VAR).map_or(true, |v| v != "0")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("fma")
    })
}

/// The kernel the CPU path uses on this machine, for benchmarks and reports.
pub fn kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        return "AVX2+FMA, two vertices per 256-bit register";
    }
    "portable (glam SIMD vectors, one vertex at a time)"
}
