//! Lengths inside a soundtrack's metadata checked against the bytes that hold them, before
//! symphonia reads the file. symphonia 0.5 allocates what a FLAC comment or picture says it
//! holds (up to 4 GiB each, zero-filled) before it finds the block shorter: fuzz/audio found a
//! 3 GB allocation from a file of a few kilobytes. A file whose claims cannot fit is refused
//! with the byte where the claim is.

/// What in `bytes` claims more than the file holds, said for the error message; `None` when
/// every length checked fits (or the file is no FLAC: other containers are left to symphonia).
pub(crate) fn overclaim(bytes: &[u8]) -> Option<String> {
    flac(bytes)
}

/// FLAC's metadata blocks after the `fLaC` marker: a one-byte kind (high bit: the last block)
/// and a 24-bit big-endian length each. The Vorbis comment block (kind 4) holds
/// little-endian lengths, the picture block (kind 6) big-endian ones.
fn flac(bytes: &[u8]) -> Option<String> {
    // symphonia's probe scans from the start past bytes it does not take for another format
    // (and its notion of those is more than a first byte or two), so any `fLaC` marker may
    // be where it starts reading FLAC: the blocks after each one are checked.
    let markers = bytes.windows(4).enumerate().filter(|(_, w)| *w == b"fLaC");
    markers
        .map(|(marker, _)| blocks(bytes, marker + 4))
        .find_map(|e| e)
}

/// The metadata blocks from `at` on, as FLAC lays them out after its marker: the first
/// claim that cannot fit.
fn blocks(bytes: &[u8], mut at: usize) -> Option<String> {
    while let Some(header) = bytes.get(at..at + 4) {
        let start = at + 4;
        let len = u32::from_be_bytes([0, header[1], header[2], header[3]]) as usize;
        let block = &bytes[start.min(bytes.len())..(start + len).min(bytes.len())];
        let mut reader = Lengths {
            block,
            start,
            read: 0,
        };
        let found = match header[0] & 0x7f {
            4 => reader.vorbis_comment(),
            6 => reader.picture(),
            _ => Ok(()),
        };
        if let Err(e) = found {
            return Some(e);
        }
        if header[0] & 0x80 != 0 {
            break;
        }
        at = start + len;
    }
    None
}

/// A reader of one block's length fields: each length must fit in what follows it.
struct Lengths<'a> {
    block: &'a [u8],
    /// The block's offset in the file, for messages.
    start: usize,
    read: usize,
}

impl Lengths<'_> {
    /// The next four bytes, or `None` when the block ends first (symphonia reports that).
    fn word(&mut self, big_endian: bool) -> Option<usize> {
        let b: [u8; 4] = self.block.get(self.read..self.read + 4)?.try_into().ok()?;
        self.read += 4;
        Some(if big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        } as usize)
    }

    /// A length field followed by that many bytes.
    fn field(&mut self, what: &str, big_endian: bool) -> Result<Option<()>, String> {
        let at = self.start + self.read;
        let Some(claim) = self.word(big_endian) else {
            return Ok(None);
        };
        let left = self.block.len() - self.read;
        if claim > left {
            return Err(format!(
                "FLAC metadata at byte {at}: the {what} says {claim} bytes follow, but its block \
                 holds {left}"
            ));
        }
        self.read += claim;
        Ok(Some(()))
    }

    /// Vendor string, comment count, then each comment.
    fn vorbis_comment(&mut self) -> Result<(), String> {
        if self
            .field("comment block's vendor string", false)?
            .is_none()
        {
            return Ok(());
        }
        let Some(count) = self.word(false) else {
            return Ok(());
        };
        for _ in 0..count {
            if self.field("comment", false)?.is_none() {
                break;
            }
        }
        Ok(())
    }

    /// Picture type, media type, description, four numbers, then the image.
    fn picture(&mut self) -> Result<(), String> {
        if self.word(true).is_none()
            || self.field("picture's media type", true)?.is_none()
            || self.field("picture's description", true)?.is_none()
        {
            return Ok(());
        }
        for _ in 0..4 {
            if self.word(true).is_none() {
                return Ok(());
            }
        }
        self.field("picture's data", true).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::overclaim;

    /// `fLaC`, a 34-byte STREAMINFO block, then `last` as the final block.
    fn flac(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut f = b"fLaC".to_vec();
        f.extend_from_slice(&[0, 0, 0, 34]);
        f.extend_from_slice(&[0; 34]);
        let len = body.len() as u32;
        f.push(0x80 | kind);
        f.extend_from_slice(&len.to_be_bytes()[1..]);
        f.extend_from_slice(body);
        f
    }

    fn le(v: u32) -> [u8; 4] {
        v.to_le_bytes()
    }

    #[test]
    fn comments_that_fit_pass_and_one_that_claims_more_is_named() {
        let mut fits = Vec::new();
        fits.extend(le(3));
        fits.extend(b"odo");
        fits.extend(le(1));
        fits.extend(le(5));
        fits.extend(b"A=bcd");
        assert_eq!(overclaim(&flac(4, &fits)), None);
        // The case fuzz/audio found: a comment claiming 0xC0C0C0C0 bytes in a 12-byte block;
        // its length field is at 4 + 4 + 34 (STREAMINFO) + 4 (the header) + 8 = byte 54.
        let mut over = Vec::new();
        over.extend(le(0));
        over.extend(le(1));
        over.extend(le(0xC0C0_C0C0));
        let message = overclaim(&flac(4, &over)).expect("refused");
        assert_eq!(
            message,
            "FLAC metadata at byte 54: the comment says 3233857728 bytes follow, but its block \
             holds 0"
        );
    }

    #[test]
    fn a_picture_claiming_more_than_its_block_is_named() {
        let mut picture = Vec::new();
        picture.extend(3u32.to_be_bytes());
        picture.extend(9u32.to_be_bytes());
        picture.extend(b"image/png");
        picture.extend(0u32.to_be_bytes());
        picture.extend([0; 16]);
        picture.extend(4u32.to_be_bytes());
        picture.extend([1, 2, 3, 4]);
        assert_eq!(overclaim(&flac(6, &picture)), None);
        let n = picture.len();
        picture[n - 8..n - 4].copy_from_slice(&u32::MAX.to_be_bytes());
        let message = overclaim(&flac(6, &picture)).expect("refused");
        assert!(
            message.contains("picture's data says 4294967295 bytes"),
            "{message}"
        );
    }

    /// A block cut short is symphonia's to report (it reads nothing past the end); a file
    /// that is no FLAC is not looked at.
    #[test]
    fn short_blocks_and_other_files_are_left_to_symphonia() {
        let mut cut = flac(4, &[3, 0]);
        cut.truncate(cut.len() - 1);
        assert_eq!(overclaim(&cut), None);
        assert_eq!(overclaim(b"ID3\x04"), None);
        // Behind bytes that look like another format's start, a FLAC claim is still checked:
        // symphonia's probe may pass them by (CI's fuzz smoke found one behind `FF EF F5`).
        let mut mp3_like = vec![0xFF, 0xEF, 0xF5];
        mp3_like.extend(flac(4, &[0, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]));
        assert!(overclaim(&mp3_like).is_some());
    }

    /// What CI's fuzz smoke found: a byte symphonia skips, then a FLAC whose comment claims
    /// more than its block. symphonia reads it as FLAC, so it is checked.
    #[test]
    fn a_flac_after_junk_is_checked_too() {
        let mut junk = vec![0xFF];
        junk.extend(flac(4, &[0, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xEF]));
        let message = overclaim(&junk).expect("refused");
        assert!(
            message.starts_with("FLAC metadata at byte 55:"),
            "{message}"
        );
        // The input itself, less the fuzz target's first byte (the extension it picks).
        let found: &[u8] = b"\xfffLaC\x14\0\0\0\x04\xff\0\0\0\0\0\0\0\0\xf8\x1e\xef\x0a\xff\xff\xff\xef\0\xff\xff\xff\xefph\0";
        let message = overclaim(found).expect("refused");
        assert!(
            message.starts_with("FLAC metadata at byte 21:"),
            "{message}"
        );
        // The second, behind bytes an MP3 frame could start with.
        let found: &[u8] =
            b"\xff\xef\xf5fLaC\x86\x80\xfe\x32\x32\xef\0\0\x84\0\0\x21\0\0\0\0\0\x50\x04";
        let message = overclaim(found).expect("refused");
        assert!(
            message.starts_with("FLAC metadata at byte 15:"),
            "{message}"
        );
        assert_eq!(overclaim(b""), None);
    }
}
