//! PLACEHOLDER: being written; replaced before the first commit that lands.
use super::Pmd;
use crate::error::Result;
pub fn write(_v: &Pmd) -> Result<Vec<u8>> {
    todo!()
}
