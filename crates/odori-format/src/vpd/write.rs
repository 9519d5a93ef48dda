//! VPD writer: the text MMD writes (Shift-JIS, CRLF, MMD's comments), with numbers in MMD's
//! six decimals whenever that reads back to the same float, and the shortest exact form
//! otherwise, so parse → write → parse is lossless.

use super::Vpd;
use super::read::MAGIC;
use crate::sjis::encode_sjis;
use std::fmt::Write;

/// Write a pose as MMD does. Characters Shift-JIS cannot hold become `?`, line feeds in names
/// become spaces, and NaN or infinity (which no reader accepts) are written as Rust prints them.
pub fn write(vpd: &Vpd) -> Vec<u8> {
    let mut t = String::with_capacity(128 + 128 * (vpd.bones.len() + vpd.morphs.len()));
    // `write!` into a String cannot fail.
    let _ = write!(
        t,
        "{MAGIC}\r\n\r\n{};\t\t// 親ファイル名\r\n",
        one_line(&vpd.model_name)
    );
    let _ = write!(t, "{};\t\t\t\t// 総ポーズボーン数\r\n\r\n", vpd.bones.len());
    for (i, b) in vpd.bones.iter().enumerate() {
        let [x, y, z] = b.translation.map(num);
        let [qx, qy, qz, qw] = b.rotation.map(num);
        let _ = write!(
            t,
            "Bone{i}{{{}\r\n  {x},{y},{z};\t\t\t\t// trans x,y,z\r\n  {qx},{qy},{qz},{qw};\t\t// Quaternion x,y,z,w\r\n}}\r\n\r\n",
            one_line(&b.name)
        );
    }
    for (i, m) in vpd.morphs.iter().enumerate() {
        let _ = write!(
            t,
            "Morph{i}{{{}\r\n  {};\t\t\t\t// weight\r\n}}\r\n\r\n",
            one_line(&m.name),
            num(m.weight)
        );
    }
    encode_sjis(&t)
}

/// MMD's `%f` when it is exact, else the shortest text that reads back to `v`.
pub(crate) fn num(v: f32) -> String {
    let six = format!("{v:.6}");
    if six.parse::<f32>().is_ok_and(|p| p.to_bits() == v.to_bits()) {
        six
    } else {
        v.to_string()
    }
}

/// A name must stay on its line: a line feed becomes a space. A lone carriage return is kept,
/// since the reader splits lines on line feeds only (an LF file can hold one inside a name).
fn one_line(s: &str) -> String {
    s.replace('\n', " ")
}
