//! A bounds-checked little-endian byte cursor that turns every short read into a located error.
//!
//! All binary readers go through this type, so no reader indexes a slice directly: a hostile
//! file cannot make us panic, and an element count is checked against the bytes left before
//! anything is allocated for it.

use crate::error::{Diagnostic, ErrorKind, Format, FormatError, Location, Result};

pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
    section: &'static str,
    element: Option<usize>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8], format: Format) -> Self {
        Cursor {
            data,
            pos: 0,
            format,
            section: "header",
            element: None,
            diagnostics: Vec::new(),
        }
    }

    /// Start a new section: later errors name it, and no element is current.
    pub(crate) fn section(&mut self, name: &'static str) {
        self.section = name;
        self.element = None;
    }

    /// Name the element being read (its index in the section).
    pub(crate) fn element(&mut self, index: usize) {
        self.element = Some(index);
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(crate) fn location_at(&self, field: &'static str, offset: usize) -> Location {
        Location {
            format: self.format,
            section: self.section,
            element: self.element,
            field,
            offset: offset as u64,
        }
    }

    pub(crate) fn error_at(
        &self,
        field: &'static str,
        offset: usize,
        kind: ErrorKind,
    ) -> FormatError {
        FormatError::new(self.location_at(field, offset), kind)
    }

    pub(crate) fn error(&self, field: &'static str, kind: ErrorKind) -> FormatError {
        self.error_at(field, self.pos, kind)
    }

    /// Record damage that does not stop the read.
    pub(crate) fn diagnose_at(&mut self, field: &'static str, offset: usize, message: String) {
        let location = self.location_at(field, offset);
        self.diagnostics.push(Diagnostic { location, message });
    }

    pub(crate) fn bytes(&mut self, field: &'static str, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(
                field,
                ErrorKind::Truncated {
                    needed: n as u64,
                    available: self.remaining() as u64,
                },
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N]> {
        let s = self.bytes(field, N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8> {
        Ok(self.array::<1>(field)?[0])
    }

    pub(crate) fn i8(&mut self, field: &'static str) -> Result<i8> {
        Ok(self.u8(field)? as i8)
    }

    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn i16(&mut self, field: &'static str) -> Result<i16> {
        Ok(i16::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn i32(&mut self, field: &'static str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(field)?))
    }

    /// A float that must be finite: NaN or infinity is an error.
    pub(crate) fn f32(&mut self, field: &'static str) -> Result<f32> {
        let at = self.pos;
        let v = f32::from_le_bytes(self.array(field)?);
        if !v.is_finite() {
            return Err(self.error_at(field, at, ErrorKind::NonFinite(v)));
        }
        Ok(v)
    }

    /// A float kept as stored even when not finite (normals of degenerate vertices are NaN in
    /// files that MMD loads); a non-finite value is reported as a diagnostic.
    pub(crate) fn f32_lenient(&mut self, field: &'static str) -> Result<f32> {
        let at = self.pos;
        let v = f32::from_le_bytes(self.array(field)?);
        if !v.is_finite() {
            self.diagnose_at(field, at, format!("not a finite number: {v}"));
        }
        Ok(v)
    }

    pub(crate) fn f32s<const N: usize>(&mut self, field: &'static str) -> Result<[f32; N]> {
        let mut a = [0f32; N];
        for v in &mut a {
            *v = self.f32(field)?;
        }
        Ok(a)
    }

    pub(crate) fn f32s_lenient<const N: usize>(&mut self, field: &'static str) -> Result<[f32; N]> {
        let mut a = [0f32; N];
        for v in &mut a {
            *v = self.f32_lenient(field)?;
        }
        Ok(a)
    }

    /// Check that `count` elements of at least `min_size` bytes each fit in what is left, before
    /// the caller allocates for them.
    pub(crate) fn check_count(
        &self,
        field: &'static str,
        at: usize,
        count: u64,
        min_size: usize,
    ) -> Result<usize> {
        let available = self.remaining() as u64;
        let max = available / (min_size.max(1) as u64);
        if count > max {
            return Err(self.error_at(
                field,
                at,
                ErrorKind::CountTooLarge {
                    count,
                    max,
                    available,
                },
            ));
        }
        Ok(count as usize)
    }

    /// A signed 32-bit element count (PMX), checked against the bytes left.
    pub(crate) fn count_i32(&mut self, field: &'static str, min_size: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.i32(field)?;
        if n < 0 {
            return Err(self.error_at(field, at, ErrorKind::NegativeCount(n as i64)));
        }
        self.check_count(field, at, n as u64, min_size)
    }

    /// An unsigned 32-bit element count (PMD, VMD), checked against the bytes left.
    pub(crate) fn count_u32(&mut self, field: &'static str, min_size: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.u32(field)?;
        self.check_count(field, at, n as u64, min_size)
    }

    /// An 8-bit element count, checked against the bytes left.
    pub(crate) fn count_u8(&mut self, field: &'static str, min_size: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.u8(field)?;
        self.check_count(field, at, n as u64, min_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_read_is_located() {
        let mut c = Cursor::new(&[1, 2, 3], Format::Vmd);
        c.section("bones");
        c.element(4);
        assert_eq!(c.u16("a").unwrap(), 0x0201);
        let e = c.u32("frame").unwrap_err();
        assert_eq!(e.location.offset, 2);
        assert_eq!(e.location.element, Some(4));
        assert_eq!(
            e.kind,
            ErrorKind::Truncated {
                needed: 4,
                available: 1
            }
        );
    }

    #[test]
    fn huge_count_rejected_before_allocation() {
        let data = 0x8000_0000u32.to_le_bytes();
        let mut c = Cursor::new(&data, Format::Vmd);
        let e = c.count_u32("count", 111).unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::CountTooLarge {
                count: 0x8000_0000,
                max: 0,
                ..
            }
        ));
        let data = (-5i32).to_le_bytes();
        let mut c = Cursor::new(&data, Format::Pmx);
        assert!(matches!(
            c.count_i32("count", 1).unwrap_err().kind,
            ErrorKind::NegativeCount(-5)
        ));
    }

    #[test]
    fn nan_is_an_error_or_a_diagnostic() {
        let data = f32::NAN.to_le_bytes();
        let mut c = Cursor::new(&data, Format::Pmx);
        assert!(matches!(
            c.f32("x").unwrap_err().kind,
            ErrorKind::NonFinite(_)
        ));
        let mut c = Cursor::new(&data, Format::Pmx);
        assert!(c.f32_lenient("x").unwrap().is_nan());
        assert_eq!(c.diagnostics.len(), 1);
    }
}
