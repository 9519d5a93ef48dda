//! Decoding texture files to RGBA8, never panicking: a broken file is an error the caller
//! turns into a warning and a fallback.

use image::RgbaImage;
use odori_format::limits::{TEXTURE_BYTES, TEXTURE_SIDE};

/// Decode PNG, JPEG, BMP, TGA or DDS bytes (format sniffed from the content, then from the
/// extension for TGA, which has no magic).
pub fn decode(bytes: &[u8], ext: &str) -> Result<RgbaImage, String> {
    if let Some(img) = bmp_with_alpha(bytes) {
        return Ok(img);
    }
    let guessed = image::guess_format(bytes).ok().or_else(|| {
        if ext.eq_ignore_ascii_case("tga") {
            Some(image::ImageFormat::Tga)
        } else {
            None
        }
    });
    let format = guessed.ok_or_else(|| "unknown image format".to_string())?;
    let reader = || image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    // A hostile header can claim any size: the size it claims is checked before anything is
    // allocated, and the decoder is held to the same bound (for sizes found later).
    let (width, height) = reader().into_dimensions().map_err(|e| e.to_string())?;
    check_size(width, height)?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    limits.max_alloc = Some(TEXTURE_BYTES.bytes());
    let mut reader = reader();
    reader.limits(limits);
    std::panic::catch_unwind(move || reader.decode())
        .map_err(|_| "decoder panicked".to_string())?
        .map(|i| i.to_rgba8())
        .map_err(|e| e.to_string())
}

/// A `width` × `height` image is refused (naming the limit) when a side is over
/// [`TEXTURE_SIDE`] or its RGBA pixels over [`TEXTURE_BYTES`].
fn check_size(width: u32, height: u32) -> Result<(), String> {
    let side = TEXTURE_SIDE.value();
    if u64::from(width) > side || u64::from(height) > side {
        return Err(format!(
            "the header says {width} × {height} pixels, over {}",
            TEXTURE_SIDE.describe()
        ));
    }
    let rgba = u64::from(width) * u64::from(height) * 4;
    if rgba > TEXTURE_BYTES.bytes() {
        return Err(format!(
            "the header says {width} × {height} pixels ({} MiB as RGBA), over {}",
            rgba >> 20,
            TEXTURE_BYTES.describe()
        ));
    }
    Ok(())
}

/// MMD reads the fourth byte of 32-bit uncompressed BMPs as alpha (models ship eye and hair
/// textures that way), where most decoders treat it as padding. When every such byte is 0 the
/// file has no alpha and is opaque. `None`: not that kind of BMP; the general decoder takes it.
fn bmp_with_alpha(b: &[u8]) -> Option<RgbaImage> {
    let u16_at = |o: usize| b.get(o..o + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
    let u32_at = |o: usize| {
        b.get(o..o + 4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    };
    if !b.starts_with(b"BM") || u16_at(28)? != 32 || u32_at(30)? != 0 {
        return None;
    }
    let offset = u32_at(10)? as usize;
    let width = u32_at(18)? as i32;
    let height = u32_at(22)? as i32;
    // Sizes out of bounds go to the general decoder, which says why.
    if width <= 0 || height == 0 || check_size(width as u32, height.unsigned_abs()).is_err() {
        return None;
    }
    let (w, h) = (width as usize, height.unsigned_abs() as usize);
    let data = b.get(offset..offset.checked_add(w * h * 4)?)?;
    let any_alpha = data.chunks_exact(4).any(|p| p[3] != 0);
    let mut img = RgbaImage::new(w as u32, h as u32);
    for y in 0..h {
        // Positive height: rows stored bottom-up.
        let src_row = if height > 0 { h - 1 - y } else { y };
        let row = &data[src_row * w * 4..(src_row + 1) * w * 4];
        for x in 0..w {
            let p = &row[x * 4..x * 4 + 4];
            let a = if any_alpha { p[3] } else { 255 };
            img.put_pixel(x as u32, y as u32, image::Rgba([p[2], p[1], p[0], a]));
        }
    }
    Some(img)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bmp32(pixels: &[[u8; 4]], w: i32, h: i32) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(b"BM");
        b.extend_from_slice(&(54 + pixels.len() as u32 * 4).to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&54u32.to_le_bytes());
        b.extend_from_slice(&40u32.to_le_bytes());
        b.extend_from_slice(&w.to_le_bytes());
        b.extend_from_slice(&h.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&32u16.to_le_bytes());
        b.extend_from_slice(&[0; 24]);
        for p in pixels {
            b.extend_from_slice(p);
        }
        b
    }

    #[test]
    fn bmp_alpha_byte_is_alpha() {
        // Bottom-up: the first stored row is the image's last.
        let b = bmp32(&[[0, 0, 255, 10], [255, 0, 0, 200]], 1, 2);
        let img = decode(&b, "bmp").unwrap();
        assert_eq!(img.get_pixel(0, 1).0, [255, 0, 0, 10]);
        assert_eq!(img.get_pixel(0, 0).0, [0, 0, 255, 200]);
    }

    #[test]
    fn bmp_zero_alpha_is_opaque() {
        let b = bmp32(&[[1, 2, 3, 0]], 1, 1);
        assert_eq!(decode(&b, "bmp").unwrap().get_pixel(0, 0).0, [3, 2, 1, 255]);
    }

    #[test]
    fn png_jpeg_tga_round_trip() {
        let img = RgbaImage::from_fn(8, 4, |x, y| {
            image::Rgba([x as u8 * 30, y as u8 * 60, 90, 255])
        });
        for (format, ext) in [
            (image::ImageFormat::Png, "png"),
            (image::ImageFormat::Jpeg, "jpg"),
            (image::ImageFormat::Tga, "tga"),
        ] {
            let mut bytes = std::io::Cursor::new(Vec::new());
            let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
            rgb.write_to(&mut bytes, format).unwrap();
            let back = decode(bytes.get_ref(), ext).unwrap();
            assert_eq!(back.dimensions(), (8, 4), "{ext}");
            let p = back.get_pixel(7, 3).0;
            assert!(
                p[0].abs_diff(210) < 40 && p[1].abs_diff(180) < 40,
                "{ext}: {p:?}"
            );
        }
    }

    // Evidence: the headers are built from the formats' specifications (PNG's IHDR with its
    // CRC by `odori_testkit::png`, whose CRC is held to the published check value; TGA's
    // 18-byte header), so the refusal is the size check's, not a parse failure.
    #[test]
    fn a_header_that_claims_a_huge_image_is_refused_before_allocating() {
        // 60,000 × 60,000 RGBA is 13.4 GiB.
        let e = decode(&odori_testkit::png::header_claiming(60_000, 60_000), "png").unwrap_err();
        assert!(
            e.contains("60000 × 60000") && e.contains("ODORI_MAX_TEXTURE_SIDE"),
            "{e}"
        );
        // At the limit (16384 × 16384 RGBA is exactly the 1 GiB byte limit) the size is
        // allowed and the missing data is the error; one row more is refused.
        let e = decode(&odori_testkit::png::header_claiming(16_384, 16_384), "png").unwrap_err();
        assert!(
            !e.contains("ODORI_MAX"),
            "1 GiB is allowed, the data is missing: {e}"
        );
        let e = decode(&odori_testkit::png::header_claiming(16_384, 16_385), "png").unwrap_err();
        assert!(e.contains("16384 × 16385"), "{e}");
        // TGA has no magic; its 16-bit sides can claim 65535 × 65535 (16 GiB as RGBA).
        let mut tga = vec![0u8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        tga.extend_from_slice(&65535u16.to_le_bytes());
        tga.extend_from_slice(&65535u16.to_le_bytes());
        tga.extend_from_slice(&[32, 8]);
        let e = decode(&tga, "tga").unwrap_err();
        assert!(e.contains("65535 × 65535") && e.contains("pixels"), "{e}");
        // A 32-bit BMP claiming 20000 × 20000 is not read by odori's own BMP path either.
        let mut bmp = bmp32(&[], 20_000, 20_000);
        bmp.extend_from_slice(&[0; 64]);
        let e = decode(&bmp, "bmp").unwrap_err();
        assert!(e.contains("20000 × 20000"), "{e}");
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode(b"not an image", "png").is_err());
        assert!(decode(b"\x89PNG\r\n\x1a\n broken", "png").is_err());
        let mut b = bmp32(&[[1, 2, 3, 4]], 1, 1);
        b.truncate(56);
        let _ = decode(&b, "bmp"); // must not panic
    }
}
