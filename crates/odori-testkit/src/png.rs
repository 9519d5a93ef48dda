//! Hostile PNGs built from the format's specification: a valid header (signature, `IHDR` with
//! its CRC) that claims a size, and no pixel data, so a decoder's refusal is its size check's,
//! not a parse failure.

/// A PNG whose valid header claims `w` × `h` RGBA pixels (8 bits a channel), with an empty
/// `IDAT` and an `IEND`.
pub fn header_claiming(w: u32, h: u32) -> Vec<u8> {
    let ihdr = [&w.to_be_bytes()[..], &h.to_be_bytes(), &[8, 6, 0, 0, 0]].concat();
    [
        &b"\x89PNG\r\n\x1a\n"[..],
        &chunk(b"IHDR", &ihdr),
        &chunk(b"IDAT", &[]),
        &chunk(b"IEND", &[]),
    ]
    .concat()
}

/// A chunk: length, type, data, CRC over type and data.
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let body = [&kind[..], data].concat();
    let mut c = (data.len() as u32).to_be_bytes().to_vec();
    c.extend_from_slice(&body);
    c.extend_from_slice(&crc32(&body).to_be_bytes());
    c
}

/// CRC-32 (ISO-HDLC, PNG's chunk checksum), bit by bit from its definition.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    // Evidence: the CRC's published check value, and the CRC of `IHDR` with a 1 × 1 RGBA body
    // as PNG files carry it.
    #[test]
    fn crc_is_pngs() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
        let png = super::header_claiming(1, 1);
        assert_eq!(&png[29..33], &[0x1F, 0x15, 0xC4, 0x89]);
    }
}
