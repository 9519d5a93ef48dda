//! PLACEHOLDER: being written; replaced before the first commit that lands.
use super::Pmd;
use crate::error::{Diagnostic, Result};
pub fn parse(_bytes: &[u8]) -> Result<Pmd> {
    todo!()
}
pub fn parse_with_diagnostics(_bytes: &[u8]) -> Result<(Pmd, Vec<Diagnostic>)> {
    todo!()
}
