//! Fixed-size Shift-JIS name fields (PMD, VMD), kept byte for byte.
//!
//! MMD writes names into fixed fields, NUL-terminated, often with garbage after the NUL and
//! sometimes cut in the middle of a two-byte character. We keep the raw bytes (so a file
//! writes back identically, and so VMD names bind by bytes as MMD binds them) and decode on
//! demand, dropping a trailing half character.

use encoding_rs::SHIFT_JIS;
use std::borrow::Cow;
use std::fmt;

/// A Shift-JIS name stored in an `N`-byte field.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SjisName<const N: usize>(pub [u8; N]);

impl<const N: usize> SjisName<N> {
    /// Encode `text` as Shift-JIS, cut to fit `N` bytes at a character boundary, NUL padded.
    /// Characters Shift-JIS cannot hold become `?`.
    pub fn new(text: &str) -> Self {
        let encoded = encode_sjis(text);
        let mut raw = [0u8; N];
        let cut = cut_at_char_boundary(&encoded, N);
        raw[..cut].copy_from_slice(&encoded[..cut]);
        SjisName(raw)
    }

    /// The bytes before the first NUL.
    pub fn bytes(&self) -> &[u8] {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        &self.0[..end]
    }

    /// The decoded name (a trailing half character is dropped).
    pub fn text(&self) -> String {
        decode_sjis(self.bytes()).into_owned()
    }

    /// The name's bytes truncated as MMD truncates them to a shorter field (VMD's 15 bytes).
    pub fn truncated(&self, len: usize) -> &[u8] {
        let b = self.bytes();
        &b[..b.len().min(len)]
    }
}

impl<const N: usize> Default for SjisName<N> {
    fn default() -> Self {
        SjisName([0; N])
    }
}

impl<const N: usize> fmt::Debug for SjisName<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.text())
    }
}

impl<const N: usize> fmt::Display for SjisName<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// Shift-JIS bytes to text; a trailing lead byte without its second byte is dropped, any other
/// invalid sequence becomes U+FFFD.
pub fn decode_sjis(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = &bytes[..complete_prefix_len(bytes)];
    let (text, _, _) = SHIFT_JIS.decode(bytes);
    text
}

/// Text to Shift-JIS bytes (unmappable characters become `?`).
///
/// The user-defined area (lead bytes 0xF0..=0xF9), which the decoder maps to the private use
/// characters U+E000..=U+E757, is mapped back, so any decoded name encodes to bytes that
/// decode to the same text (encoding_rs's encoder, following WHATWG, leaves that area out).
pub fn encode_sjis(text: &str) -> Vec<u8> {
    let (bytes, _, had_errors) = SHIFT_JIS.encode(text);
    if !had_errors {
        return bytes.into_owned();
    }
    // encoding_rs writes HTML numeric references for unmappable characters; use '?' instead.
    let mut out = Vec::with_capacity(text.len() * 2);
    let mut buf = [0u8; 4];
    for ch in text.chars() {
        let (b, _, err) = SHIFT_JIS.encode(ch.encode_utf8(&mut buf));
        if let Some(pair) = user_defined(ch) {
            out.extend_from_slice(&pair);
        } else if err {
            out.push(b'?');
        } else {
            out.extend_from_slice(&b);
        }
    }
    out
}

/// The two bytes of a user-defined-area character (WHATWG pointers 8836..=10715).
fn user_defined(ch: char) -> Option<[u8; 2]> {
    let offset = u32::from(ch).checked_sub(0xE000).filter(|&o| o <= 0x757)?;
    let pointer = 8836 + offset;
    let (lead, trail) = (pointer / 188, pointer % 188);
    // lead is 47..=56 here, so the lead byte is 0xF0..=0xF9; trail skips 0x7F.
    let lead = (lead + 0xC1) as u8;
    let trail = (trail + if trail < 0x3F { 0x40 } else { 0x41 }) as u8;
    Some([lead, trail])
}

fn is_lead_byte(b: u8) -> bool {
    matches!(b, 0x81..=0x9F | 0xE0..=0xFC)
}

/// Length of `bytes` without a trailing, incomplete two-byte character.
fn complete_prefix_len(bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() {
        if is_lead_byte(bytes[i]) {
            if i + 1 >= bytes.len() {
                return i;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The longest prefix of Shift-JIS `bytes` that fits in `max` bytes without splitting a character.
pub fn cut_at_char_boundary(bytes: &[u8], max: usize) -> usize {
    if bytes.len() <= max {
        return bytes.len();
    }
    complete_prefix_len(&bytes[..max])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_truncates_on_boundaries() {
        let n = SjisName::<20>::new("左足ＩＫ");
        assert_eq!(n.text(), "左足ＩＫ");
        assert_eq!(n.bytes().len(), 8);
        let long = SjisName::<15>::new("あいうえおかきく");
        assert_eq!(long.bytes().len(), 14);
        assert_eq!(long.text(), "あいうえおかき");
    }

    #[test]
    fn half_character_dropped_and_garbage_after_nul_kept() {
        let mut raw = [0xFDu8; 6];
        raw[..3].copy_from_slice(&[0x82, 0xA0, 0x82]); // "あ" + a lone lead byte
        raw[3] = 0;
        let n = SjisName(raw);
        assert_eq!(n.text(), "あ");
        assert_eq!(n.0[5], 0xFD);
    }

    #[test]
    fn user_defined_area_round_trips() {
        for bytes in [
            [0xF0, 0x40],
            [0xF0, 0x7E],
            [0xF0, 0x80],
            [0xF5, 0x9F],
            [0xF9, 0xFC],
        ] {
            let text = decode_sjis(&bytes).into_owned();
            assert!(!text.contains('\u{FFFD}'));
            assert_eq!(encode_sjis(&text), bytes, "{text:?}");
        }
        assert_eq!(encode_sjis("\u{E758}"), b"?");
    }

    /// What the VPD reader relies on: decoded text always encodes to bytes that decode to it.
    #[test]
    fn every_decodable_pair_re_encodes_to_the_same_text() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let text = decode_sjis(&[a, b]).into_owned();
                if !text.contains('\u{FFFD}') {
                    assert_eq!(decode_sjis(&encode_sjis(&text)), text, "{a:02X} {b:02X}");
                }
            }
        }
    }

    #[test]
    fn unmappable_becomes_question_mark() {
        assert_eq!(encode_sjis("a😀b"), b"a?b");
    }
}
