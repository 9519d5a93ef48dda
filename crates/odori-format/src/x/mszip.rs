//! MSZIP, the compression of `tzip`/`bzip` `.x` files.
//!
//! After the 16-byte header: a `u32` with the decompressed file's size, then blocks, each a
//! `u16` decompressed size (at most 32 KiB), a `u16` compressed size counting the two-byte
//! `CK` signature, `CK`, and a raw deflate stream. A block's stream may refer back into the
//! previous blocks' output (they share one 32 KiB history), so every block is inflated into
//! the one output buffer after what came before.

use super::header::LEN as HEADER_LEN;
use super::lex::error_at;
use crate::cursor::Cursor;
use crate::error::{ErrorKind, Format, Result};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};

/// The largest block MSZIP makes.
const BLOCK: usize = 32 * 1024;

/// A decompressed body larger than this is refused: no accessory comes near it, and a
/// hostile file must not make us allocate what deflate's ratio would allow.
pub(super) const MAX_DECOMPRESSED: usize = 256 * 1024 * 1024;

/// The decompressed body of a compressed file (`bytes` is the whole file, header included).
pub(super) fn inflate(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut c = Cursor::new(bytes, Format::X);
    c.section("compressed data");
    c.bytes("header", HEADER_LEN)?;
    let declared = c.u32("decompressed size")? as usize;
    let limit = declared.min(MAX_DECOMPRESSED);
    let mut out: Vec<u8> = Vec::new();
    let mut block = 0usize;
    while !c.at_end() {
        c.element(block);
        let block_at = c.pos();
        let size = c.u16("block decompressed size")? as usize;
        let packed_at = c.pos();
        let packed = c.u16("block compressed size")? as usize;
        if size > BLOCK {
            return Err(c.error_at(
                "block decompressed size",
                block_at,
                ErrorKind::Syntax(format!("a block holds at most {BLOCK} bytes, not {size}")),
            ));
        }
        let Some(deflated_len) = packed.checked_sub(2) else {
            return Err(c.error_at(
                "block compressed size",
                packed_at,
                ErrorKind::Syntax(format!("{packed} is too small to hold the `CK` signature")),
            ));
        };
        let signature_at = c.pos();
        if c.array::<2>("block signature")? != *b"CK" {
            return Err(c.error_at(
                "block signature",
                signature_at,
                ErrorKind::BadMagic {
                    expected: "\"CK\"",
                    found: bytes
                        .get(signature_at..signature_at + 2)
                        .unwrap_or(&[])
                        .to_vec(),
                },
            ));
        }
        let data_at = c.pos();
        let deflated = c.bytes("block data", deflated_len)?;
        let start = out.len();
        if start + size > limit {
            let message = if start + size > MAX_DECOMPRESSED {
                format!("the decompressed data would pass {MAX_DECOMPRESSED} bytes")
            } else {
                format!("the blocks hold more than the {declared} bytes the file declares")
            };
            return Err(c.error_at(
                "block decompressed size",
                block_at,
                ErrorKind::Syntax(message),
            ));
        }
        out.resize(start + size, 0);
        let mut state = DecompressorOxide::new();
        let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (status, _, written) = decompress(&mut state, deflated, &mut out, start, flags);
        if status != TINFLStatus::Done || written != size {
            let message = match status {
                TINFLStatus::Done => {
                    format!("the block inflates to {written} bytes, its header says {size}")
                }
                TINFLStatus::HasMoreOutput => {
                    format!("the block inflates to more than the {size} bytes its header says")
                }
                other => format!("bad deflate data ({other:?})"),
            };
            return Err(error_at(
                "compressed data",
                "block data",
                data_at,
                ErrorKind::Syntax(format!("block {block}: {message}")),
            ));
        }
        block += 1;
    }
    Ok(out)
}
