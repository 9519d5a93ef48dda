//! The little-endian byte writer used by every writer; the mirror of [`crate::cursor`].

use crate::error::{ErrorKind, Format, FormatError, Location, Result};

pub(crate) struct Sink {
    pub(crate) buf: Vec<u8>,
    format: Format,
    section: &'static str,
    element: Option<usize>,
}

impl Sink {
    pub(crate) fn new(format: Format, capacity: usize) -> Self {
        Sink {
            buf: Vec::with_capacity(capacity),
            format,
            section: "header",
            element: None,
        }
    }

    pub(crate) fn section(&mut self, name: &'static str) {
        self.section = name;
        self.element = None;
    }

    pub(crate) fn element(&mut self, index: usize) {
        self.element = Some(index);
    }

    /// A value that this file's layout cannot hold (an index too big for its index size, say).
    pub(crate) fn error(&self, field: &'static str, message: String) -> FormatError {
        FormatError::new(
            Location {
                format: self.format,
                section: self.section,
                element: self.element,
                field,
                offset: self.buf.len() as u64,
            },
            ErrorKind::Unwritable(message),
        )
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub(crate) fn i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn i16(&mut self, v: i16) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn f32(&mut self, v: f32) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.f32(*x);
        }
    }

    /// A length that must fit a u32 count field.
    pub(crate) fn count_u32(&mut self, field: &'static str, n: usize) -> Result<()> {
        let v = u32::try_from(n).map_err(|_| self.error(field, format!("{n} elements")))?;
        self.u32(v);
        Ok(())
    }

    /// A length that must fit a positive i32 count field (PMX).
    pub(crate) fn count_i32(&mut self, field: &'static str, n: usize) -> Result<()> {
        let v = i32::try_from(n).map_err(|_| self.error(field, format!("{n} elements")))?;
        self.i32(v);
        Ok(())
    }
}
