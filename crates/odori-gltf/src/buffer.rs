//! The one binary buffer of an export and the glTF buffer views and accessors that describe
//! it. Every view starts on a 4-byte boundary (glTF's alignment rule for every component
//! type used here).

use serde_json::{Value, json};

pub const ARRAY_BUFFER: u32 = 34962;
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;
pub const FLOAT: u32 = 5126;
pub const UNSIGNED_SHORT: u32 = 5123;
pub const UNSIGNED_INT: u32 = 5125;

#[derive(Default)]
pub struct Buffer {
    pub data: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Buffer {
    /// Append `bytes` as a buffer view (with `target` when it holds vertex attributes or
    /// indices); returns its index.
    pub fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        let mut v = json!({
            "buffer": 0,
            "byteOffset": self.data.len(),
            "byteLength": bytes.len(),
        });
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.data.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// Add an accessor; returns its index.
    pub fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Floats, `width` per element ("SCALAR", "VEC2", "VEC3", "VEC4"), with min and max when
    /// `bounds` (glTF requires them for positions and animation inputs).
    pub fn floats(
        &mut self,
        values: &[f32],
        width: usize,
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        let view = self.view(&f32_bytes(values), target);
        let count = values.len() / width;
        let mut a = json!({
            "bufferView": view,
            "componentType": FLOAT,
            "count": count,
            "type": type_name(width),
        });
        if bounds {
            let (lo, hi) = min_max(values, width);
            a["min"] = json!(lo);
            a["max"] = json!(hi);
        }
        self.accessor(a)
    }
}

pub fn type_name(width: usize) -> &'static str {
    match width {
        1 => "SCALAR",
        2 => "VEC2",
        3 => "VEC3",
        4 => "VEC4",
        16 => "MAT4",
        _ => unreachable!("no accessor type of width {width}"),
    }
}

pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn u16_bytes(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Per component, the smallest and largest value (as f64 of the f32, so the JSON holds the
/// stored value exactly). A zero is written unsigned: which of −0 and +0 `max` returns is
/// left to the compiler, and a file must not change with the build.
pub fn min_max(values: &[f32], width: usize) -> (Vec<f64>, Vec<f64>) {
    let mut lo = vec![f64::INFINITY; width];
    let mut hi = vec![f64::NEG_INFINITY; width];
    for e in values.chunks_exact(width) {
        for (i, &v) in e.iter().enumerate() {
            lo[i] = lo[i].min(v as f64);
            hi[i] = hi[i].max(v as f64);
        }
    }
    let unsigned_zero = |x: f64| x + 0.0;
    (
        lo.into_iter().map(unsigned_zero).collect(),
        hi.into_iter().map(unsigned_zero).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::min_max;

    /// Bounds of negative zeros (a mirrored Z of 0) come out as +0, whose sign bit is clear.
    #[test]
    fn min_max_writes_zero_unsigned() {
        let (lo, hi) = min_max(&[-0.0, 1.0, -0.0, -2.0], 2);
        assert_eq!(lo, [-0.0, -2.0]);
        assert_eq!(hi, [0.0, 1.0]);
        assert!(lo[0].is_sign_positive() && hi[0].is_sign_positive());
        assert_eq!(min_max(&[3.5, -4.25], 1), (vec![-4.25], vec![3.5]));
    }
}
