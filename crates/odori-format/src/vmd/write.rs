//! PLACEHOLDER: being written; replaced before the first commit that lands.
use super::Vmd;
use crate::error::Result;
pub fn write(_v: &Vmd) -> Result<Vec<u8>> {
    todo!()
}
