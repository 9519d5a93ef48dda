//! The MSAA resolve of a band into RGBA8 bytes.

/// The MSAA resolve: each pixel's samples averaged (rounded), written as RGBA8 bytes. With
/// four samples the channels are summed two at a time in 16-bit lanes of a `u32`.
pub(super) fn resolve(color: &[u32], out: &mut [u8], samples: usize) {
    if samples == 1 {
        for (o, c) in out.chunks_exact_mut(4).zip(color) {
            o.copy_from_slice(&c.to_le_bytes());
        }
        return;
    }
    #[cfg(test)]
    assert_eq!(samples, 4);
    for (o, px) in out.chunks_exact_mut(4).zip(color.chunks_exact(4)) {
        let (mut even, mut odd) = (0u32, 0u32);
        for &c in px {
            even += c & 0x00ff_00ff;
            odd += (c >> 8) & 0x00ff_00ff;
        }
        let even = ((even + 0x0002_0002) >> 2) & 0x00ff_00ff;
        let odd = ((odd + 0x0002_0002) >> 2) & 0x00ff_00ff;
        o.copy_from_slice(&(even | (odd << 8)).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed resolve equals the per-channel rounded mean, (a + b + c + d + 2) / 4.
    #[test]
    fn resolve_is_the_rounded_mean() {
        let mut x = 0x1234_5678u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let color: Vec<u32> = (0..4 * 1000).map(|_| next()).collect();
        let mut out = vec![0u8; 4 * 1000];
        resolve(&color, &mut out, 4);
        for (px, o) in color.chunks_exact(4).zip(out.chunks_exact(4)) {
            for (c, &got) in o.iter().enumerate() {
                let sum: u32 = px.iter().map(|v| v.to_le_bytes()[c] as u32).sum();
                assert_eq!(got as u32, (sum + 2) / 4, "{px:x?}");
            }
        }
        resolve(&color[..1000], &mut out[..4000], 1);
        assert_eq!(
            &out[..4000],
            bytemuck::cast_slice::<u32, u8>(&color[..1000])
        );
    }
}
