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
    odori_fmodf = fmodf(x: f32, y: f32);
}

/// Bullet's `powf` (`libm::powf`), remembered. Bullet calls it only to damp each moving
/// body's velocities, `(1 - damping)^timeStep`, twice per body per step, with the same few
/// pairs every step (the model's damping values, the fixed step); in the page libm's powf
/// was 2% of a step. A small table per thread, keyed by both arguments' bits, gives back the
/// very bits `libm::powf` gave for them, so no result changes.
#[unsafe(no_mangle)]
pub extern "C" fn odori_powf(x: f32, y: f32) -> f32 {
    POWF_MEMO.with(|memo| memo.powf(x, y))
}

/// What [`odori_powf`]'s table did on this thread: (answers it held, answers it computed).
pub fn powf_memo_counts() -> (u64, u64) {
    POWF_MEMO.with(|memo| (memo.hits.get(), memo.misses.get()))
}

/// Slots in [`PowfMemo`] (a power of two): a model has a few dozen distinct damping values
/// at most.
const POWF_SLOTS: usize = 64;

/// A direct-mapped cache of `libm::powf`: slot `i` holds the key (`x`'s bits, then `y`'s) and
/// result of the last pair that hashed to `i`.
struct PowfMemo {
    slots: [std::cell::Cell<Option<(u64, f32)>>; POWF_SLOTS],
    hits: std::cell::Cell<u64>,
    misses: std::cell::Cell<u64>,
}

impl PowfMemo {
    fn powf(&self, x: f32, y: f32) -> f32 {
        let key = (u64::from(x.to_bits()) << 32) | u64::from(y.to_bits());
        // Fibonacci hashing: the top bits of the key times 2^64 / golden ratio.
        let slot = &self.slots[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> (64 - POWF_SLOTS.trailing_zeros())) as usize];
        if let Some((k, v)) = slot.get()
            && k == key
        {
            self.hits.set(self.hits.get() + 1);
            return v;
        }
        let v = libm::powf(x, y);
        slot.set(Some((key, v)));
        self.misses.set(self.misses.get() + 1);
        v
    }
}

thread_local! {
    static POWF_MEMO: PowfMemo = const {
        PowfMemo {
            slots: [const { std::cell::Cell::new(None) }; POWF_SLOTS],
            hits: std::cell::Cell::new(0),
            misses: std::cell::Cell::new(0),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table gives `libm::powf`'s bits for every pair, also after pairs that share a slot
    /// evicted each other (200 pairs cycled through 64 slots), and it answered the repeats.
    #[test]
    fn powf_memo_gives_libms_bits() {
        let pairs: Vec<(f32, f32)> = (0..200)
            .map(|i| {
                (
                    1.0 - i as f32 * 0.0049,
                    [1.0 / 60.0, 1.0 / 120.0, 0.5][i % 3],
                )
            })
            .collect();
        let (hits0, misses0) = powf_memo_counts();
        for _ in 0..3 {
            for &(x, y) in &pairs {
                assert_eq!(
                    odori_powf(x, y).to_bits(),
                    libm::powf(x, y).to_bits(),
                    "{x}^{y}"
                );
            }
        }
        for _ in 0..3 {
            for &(x, y) in &pairs[..8] {
                assert_eq!(
                    odori_powf(x, y).to_bits(),
                    libm::powf(x, y).to_bits(),
                    "{x}^{y}"
                );
            }
        }
        let (hits, misses) = powf_memo_counts();
        assert_eq!(hits - hits0 + misses - misses0, 624, "every call counted");
        assert!(
            hits - hits0 >= 16,
            "the table answered repeats: {} hits",
            hits - hits0
        );
    }
}
