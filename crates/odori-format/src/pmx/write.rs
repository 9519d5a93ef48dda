//! PLACEHOLDER: being written; replaced before the first commit that lands.
use super::Pmx;
use crate::error::Result;
pub fn write(_v: &Pmx) -> Result<Vec<u8>> {
    todo!()
}
