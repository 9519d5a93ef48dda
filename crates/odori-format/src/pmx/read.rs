//! PLACEHOLDER: being written; replaced before the first commit that lands.
use super::Pmx;
use crate::error::{Diagnostic, Result};
pub fn parse(_bytes: &[u8]) -> Result<Pmx> {
    todo!()
}
pub fn parse_with_diagnostics(_bytes: &[u8]) -> Result<(Pmx, Vec<Diagnostic>)> {
    todo!()
}
