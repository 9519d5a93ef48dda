//! PLACEHOLDER: being written; replaced before the first commit that lands.
use super::Vmd;
use crate::error::{Diagnostic, Result};
pub fn parse(_bytes: &[u8]) -> Result<Vmd> {
    todo!()
}
pub fn parse_with_diagnostics(_bytes: &[u8]) -> Result<(Vmd, Vec<Diagnostic>)> {
    todo!()
}
