//! PMX text fields: an i32 byte length, then UTF-16LE or UTF-8 bytes (per the header).
//!
//! Decoding is strict (an unpaired surrogate or bad UTF-8 is an error, not a replacement
//! character) so that a string read is written back to the same bytes.

use super::Reader;
use crate::error::{ErrorKind, Result};
use crate::pmx::TextEncoding;

impl Reader<'_> {
    /// One text field. Errors point at the length field for a bad length, and at the bad code
    /// unit or byte for bad text.
    pub(super) fn text(&mut self, field: &'static str) -> Result<String> {
        let at = self.c.pos();
        let len = self.c.i32(field)?;
        let Ok(len) = usize::try_from(len) else {
            return Err(self
                .c
                .error_at(field, at, ErrorKind::NegativeCount(len.into())));
        };
        if self.h.encoding == TextEncoding::Utf16Le && !len.is_multiple_of(2) {
            return Err(self
                .c
                .error_at(field, at, ErrorKind::OddUtf16Length(len as u64)));
        }
        let start = self.c.pos();
        // `bytes` checks the length against what is left before anything is allocated.
        let bytes = self.c.bytes(field, len)?;
        let decoded = match self.h.encoding {
            TextEncoding::Utf16Le => decode_utf16le(bytes),
            TextEncoding::Utf8 => decode_utf8(bytes),
        };
        decoded.map_err(|(kind, rel)| self.c.error_at(field, start.saturating_add(rel), kind))
    }
}

/// Strict UTF-16LE decoding of an even number of bytes. On error, also the byte position of
/// the offending code unit.
pub(crate) fn decode_utf16le(bytes: &[u8]) -> std::result::Result<String, (ErrorKind, usize)> {
    let (units, _odd) = bytes.as_chunks::<2>();
    // Names are mostly ASCII or BMP: reserve for the common one-byte-per-unit case.
    let mut s = String::with_capacity(units.len());
    let mut pos = 0usize;
    for c in char::decode_utf16(units.iter().map(|u| u16::from_le_bytes(*u))) {
        match c {
            Ok(c) => {
                s.push(c);
                pos += c.len_utf16() * 2;
            }
            Err(_) => return Err((ErrorKind::InvalidUtf16, pos)),
        }
    }
    Ok(s)
}

/// Strict UTF-8 decoding. On error, also the byte position of the first bad byte.
pub(crate) fn decode_utf8(bytes: &[u8]) -> std::result::Result<String, (ErrorKind, usize)> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_owned()),
        Err(e) => Err((ErrorKind::InvalidUtf8, e.valid_up_to())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(units: &[u16]) -> Vec<u8> {
        units.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    #[test]
    fn utf16_decodes_bmp_and_pairs() {
        let s = "センター a 😀";
        let units: Vec<u16> = s.encode_utf16().collect();
        assert_eq!(decode_utf16le(&utf16(&units)).unwrap(), s);
    }

    #[test]
    fn unpaired_surrogate_is_located() {
        // "ab", a lone high surrogate, "c".
        let bytes = utf16(&[0x61, 0x62, 0xD800, 0x63]);
        assert_eq!(decode_utf16le(&bytes), Err((ErrorKind::InvalidUtf16, 4)));
        // A lone low surrogate after a pair.
        let bytes = utf16(&[0xD83D, 0xDE00, 0xDC00]);
        assert_eq!(decode_utf16le(&bytes), Err((ErrorKind::InvalidUtf16, 4)));
    }

    #[test]
    fn bad_utf8_is_located() {
        assert_eq!(decode_utf8(b"ab\xffc"), Err((ErrorKind::InvalidUtf8, 2)));
        assert_eq!(decode_utf8("é".as_bytes()).unwrap(), "é");
    }
}
