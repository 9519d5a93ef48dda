//! DirectX `.x` and `.vac` files: fixtures written by the test in every encoding read to the
//! same mesh, the writer round-trips, the static model MMD draws, and hostile input.
//!
//! Evidence the reader is held to: the text fixture is written by hand in the syntax of the
//! DirectX file format reference (templates, GUIDs, comments, separators as exporters write
//! them), the binary fixtures are token streams assembled here from the reference's token
//! table (not by the crate's writer), and the compressed fixture is MSZIP built here from
//! deflate blocks, the second one a hand-coded fixed-Huffman block whose only match reaches
//! back into the first block's output (so a reader that does not share the history between
//! blocks fails). All of them must read to the `XFile` built in code below.

use odori_format::sjis::encode_sjis;
use odori_format::x::{
    self, Encoding, FloatSize, Frame, Header, Material, MaterialList, MaterialSlot, Mesh,
    MeshNormals, XFile,
};
use odori_format::{ErrorKind, Format, FormatError, vac};

// ---------------------------------------------------------------------------------------------
// The cube: two materials (one inline with a texture and a multiply sphere map, one a
// reference to a top-level material with a lone add sphere map), in a translated frame.

const POSITIONS: [[f32; 3]; 8] = [
    [-1.0, -1.0, -1.0],
    [-1.0, 1.0, -1.0],
    [1.0, 1.0, -1.0],
    [1.0, -1.0, -1.0],
    [-1.0, -1.0, 1.0],
    [-1.0, 1.0, 1.0],
    [1.0, 1.0, 1.0],
    [1.0, -1.0, 1.0],
];

/// Quads, clockwise seen from outside (Direct3D's front faces).
const FACES: [[u32; 4]; 6] = [
    [0, 1, 2, 3],
    [7, 6, 5, 4],
    [4, 5, 1, 0],
    [3, 2, 6, 7],
    [1, 5, 6, 2],
    [4, 0, 3, 7],
];

const NORMALS: [[f32; 3]; 6] = [
    [0.0, 0.0, -1.0],
    [0.0, 0.0, 1.0],
    [-1.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, -1.0, 0.0],
];

const FACE_MATERIALS: [u32; 6] = [0, 0, 0, 1, 1, 1];

fn uv(i: usize) -> [f32; 2] {
    [i as f32 * 0.125, 1.0 - i as f32 * 0.125]
}

const TRANSLATE: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0, 3.0, 1.0,
];

fn red() -> Material {
    Material {
        name: String::new(),
        face_color: [1.0, 0.0, 0.0, 1.0],
        power: 20.0,
        specular: [1.0, 1.0, 1.0],
        emissive: [0.0, 0.0, 0.0],
        texture: Some("tex.png*metal.sph".into()),
    }
}

fn blue() -> Material {
    Material {
        name: "Blue".into(),
        face_color: [0.0, 0.0, 1.0, 0.5],
        power: 8.0,
        specular: [0.5, 0.5, 0.5],
        emissive: [0.25, 0.25, 0.75],
        texture: Some("glow.spa".into()),
    }
}

fn cube(header: Header) -> XFile {
    let mesh = Mesh {
        name: "Cube".into(),
        positions: POSITIONS.to_vec(),
        faces: FACES.iter().map(|f| f.to_vec()).collect(),
        normals: Some(MeshNormals {
            normals: NORMALS.to_vec(),
            faces: (0..6u32).map(|i| vec![i; 4]).collect(),
        }),
        uvs: Some((0..8).map(uv).collect()),
        colors: None,
        material_list: Some(MaterialList {
            face_materials: FACE_MATERIALS.to_vec(),
            materials: vec![
                MaterialSlot::Inline(red()),
                MaterialSlot::Reference("Blue".into()),
            ],
        }),
    };
    XFile {
        header,
        materials: vec![blue()],
        frames: vec![Frame {
            name: "Body".into(),
            transform: Some(TRANSLATE),
            frames: Vec::new(),
            meshes: vec![mesh],
        }],
        meshes: Vec::new(),
    }
}

fn header(encoding: Encoding, float_size: FloatSize, minor: u8) -> Header {
    Header {
        major: 3,
        minor,
        encoding,
        float_size,
    }
}

// ---------------------------------------------------------------------------------------------
// The text fixture, by hand.

fn floats(v: &[f32]) -> String {
    v.iter().map(|f| format!("{f:.6};")).collect()
}

fn cube_text(first_line: &str) -> String {
    let mut t = String::new();
    t.push_str(first_line);
    t.push_str("\r\n// A cube, written by hand.\r\n");
    t.push_str(
        "template Vector {\r\n <3D82AB5E-62DA-11cf-AB39-0020AF71E433>\r\n FLOAT x;\r\n FLOAT y;\r\n FLOAT z;\r\n}\r\n\r\n",
    );
    t.push_str(
        "template MeshFace {\r\n <3d82ab5f-62da-11cf-ab39-0020af71e433>\r\n DWORD nFaceVertexIndices;\r\n array DWORD faceVertexIndices[nFaceVertexIndices];\r\n}\r\n",
    );
    t.push_str("Header {\r\n 1;\r\n 0;\r\n 1;\r\n}\r\n");
    t.push_str("Material Blue {\r\n 0.000000;0.000000;1.000000;0.500000;;\r\n 8.000000;\r\n 0.500000;0.500000;0.500000;;\r\n 0.250000;0.250000;0.750000;;\r\n TextureFilename {\r\n  \"glow.spa\";\r\n }\r\n}\r\n");
    t.push_str("Frame Body {\r\n FrameTransformMatrix {\r\n  1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,1.0,2.0,3.0,1.0;;\r\n }\r\n");
    t.push_str(" Mesh Cube {\r\n  8;\r\n");
    for (i, p) in POSITIONS.iter().enumerate() {
        t.push_str(&format!(
            "  {}{}\r\n",
            floats(p),
            if i == 7 { ";" } else { "," }
        ));
    }
    t.push_str("  6;\r\n");
    for (i, f) in FACES.iter().enumerate() {
        let idx: Vec<String> = f.iter().map(u32::to_string).collect();
        t.push_str(&format!(
            "  4;{};{}\r\n",
            idx.join(","),
            if i == 5 { ";" } else { "," }
        ));
    }
    t.push_str("  MeshNormals {\r\n   6;\r\n");
    for (i, n) in NORMALS.iter().enumerate() {
        t.push_str(&format!(
            "   {}{}\r\n",
            floats(n),
            if i == 5 { ";" } else { "," }
        ));
    }
    t.push_str("   6;\r\n");
    for i in 0..6 {
        t.push_str(&format!(
            "   4;{i},{i},{i},{i};{}\r\n",
            if i == 5 { ";" } else { "," }
        ));
    }
    t.push_str("  }\r\n  MeshTextureCoords {\r\n   8;\r\n");
    for i in 0..8 {
        t.push_str(&format!(
            "   {}{}\r\n",
            floats(&uv(i)),
            if i == 7 { ";" } else { "," }
        ));
    }
    t.push_str("  }\r\n  MeshMaterialList {\r\n   2;\r\n   6;\r\n   0,\r\n   0,\r\n   0,\r\n   1,\r\n   1,\r\n   1;;\r\n");
    t.push_str("   Material {\r\n    1.000000;0.000000;0.000000;1.000000;;\r\n    20.000000;\r\n    1.000000;1.000000;1.000000;;\r\n    0.000000;0.000000;0.000000;;\r\n    TextureFilename {\r\n     \"tex.png*metal.sph\";\r\n    }\r\n   }\r\n");
    t.push_str("   {Blue}\r\n  }\r\n }\r\n}\r\n");
    t
}

// ---------------------------------------------------------------------------------------------
// The binary fixture, assembled from the reference's token table.

struct Tokens {
    out: Vec<u8>,
    f64: bool,
}

impl Tokens {
    fn new(head: &[u8; 16]) -> Tokens {
        Tokens {
            out: head.to_vec(),
            f64: &head[12..16] == b"0064",
        }
    }
    fn tok(&mut self, code: u16) -> &mut Self {
        self.out.extend_from_slice(&code.to_le_bytes());
        self
    }
    fn name(&mut self, s: &str) -> &mut Self {
        self.tok(1);
        self.out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.out.extend_from_slice(s.as_bytes());
        self
    }
    fn string(&mut self, s: &str) -> &mut Self {
        self.tok(2);
        self.out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.out.extend_from_slice(s.as_bytes());
        self.tok(20)
    }
    fn ints(&mut self, v: &[u32]) -> &mut Self {
        self.tok(6);
        self.out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        for x in v {
            self.out.extend_from_slice(&x.to_le_bytes());
        }
        self
    }
    fn floats(&mut self, v: &[f32]) -> &mut Self {
        self.tok(7);
        self.out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        for &x in v {
            if self.f64 {
                self.out.extend_from_slice(&f64::from(x).to_le_bytes());
            } else {
                self.out.extend_from_slice(&x.to_le_bytes());
            }
        }
        self
    }
    fn open(&mut self) -> &mut Self {
        self.tok(10)
    }
    fn close(&mut self) -> &mut Self {
        self.tok(11)
    }
}

fn binary_material(t: &mut Tokens, m: &Material) {
    t.name("Material");
    if !m.name.is_empty() {
        t.name(&m.name);
    }
    t.open().floats(&m.face_color).floats(&[m.power]);
    t.floats(&m.specular).floats(&m.emissive);
    t.name("TextureFilename").open();
    t.string(m.texture.as_deref().unwrap()).close();
    t.close();
}

fn cube_binary(head: &[u8; 16]) -> Vec<u8> {
    let mut t = Tokens::new(head);
    // template Vector { <GUID> FLOAT x; FLOAT y; FLOAT z; }
    t.tok(31).name("Vector").open().tok(5);
    t.out.extend_from_slice(&[0x5E; 16]);
    for field in ["x", "y", "z"] {
        t.tok(42).name(field).tok(20);
    }
    t.close();
    binary_material(&mut t, &blue());
    t.name("Frame").name("Body").open();
    t.name("FrameTransformMatrix")
        .open()
        .floats(&TRANSLATE)
        .close();
    t.name("Mesh").name("Cube").open();
    t.ints(&[8]).floats(POSITIONS.as_flattened());
    // Counts as one integer list each, as Direct3D's writer does it.
    let mut faces = vec![6u32];
    for f in FACES {
        faces.push(4);
        faces.extend(f);
    }
    t.ints(&faces);
    t.name("MeshNormals")
        .open()
        .ints(&[6])
        .floats(NORMALS.as_flattened());
    let mut nf = vec![6u32];
    for i in 0..6 {
        nf.extend([4, i, i, i, i]);
    }
    t.ints(&nf).close();
    let uvs: Vec<f32> = (0..8).flat_map(uv).collect();
    t.name("MeshTextureCoords")
        .open()
        .ints(&[8])
        .floats(&uvs)
        .close();
    t.name("MeshMaterialList").open();
    let mut list = vec![2u32, 6];
    list.extend(FACE_MATERIALS);
    t.ints(&list);
    binary_material(&mut t, &red());
    t.open().name("Blue").close();
    t.close(); // material list
    t.close(); // mesh
    t.close(); // frame
    t.out
}

// ---------------------------------------------------------------------------------------------
// MSZIP, built here.

/// Bits written least significant first, as deflate packs them.
struct Bits {
    out: Vec<u8>,
    bit: u32,
}

impl Bits {
    fn put(&mut self, value: u32, n: u32) {
        for i in 0..n {
            if self.bit == 0 {
                self.out.push(0);
            }
            if value >> i & 1 == 1 {
                *self.out.last_mut().unwrap() |= 1 << self.bit;
            }
            self.bit = (self.bit + 1) % 8;
        }
    }
    /// A Huffman code: most significant bit first.
    fn code(&mut self, code: u32, n: u32) {
        for i in (0..n).rev() {
            self.put(code >> i & 1, 1);
        }
    }
}

/// `body` MSZIP-compressed after `head`: the body but its last four bytes in one deflate
/// block, then a fixed-Huffman block copying those four bytes from distance 1 (the body must
/// end with five equal bytes).
fn mszip(head: &[u8; 16], body: &[u8]) -> Vec<u8> {
    let n = body.len();
    assert!(body[n - 5..].iter().all(|&b| b == body[n - 1]));
    let first = miniz_oxide::deflate::compress_to_vec(&body[..n - 4], 6);
    let mut second = Bits {
        out: Vec::new(),
        bit: 0,
    };
    second.put(1, 1); // BFINAL
    second.put(1, 2); // BTYPE = fixed Huffman
    second.code(0b0000010, 7); // length code 258: length 4
    second.code(0, 5); // distance code 0: distance 1
    second.code(0, 7); // end of block (256)
    let mut out = head.to_vec();
    out.extend_from_slice(&((16 + n) as u32).to_le_bytes());
    for (size, data) in [(n - 4, first), (4, second.out)] {
        out.extend_from_slice(&(size as u16).to_le_bytes());
        out.extend_from_slice(&((data.len() + 2) as u16).to_le_bytes());
        out.extend_from_slice(b"CK");
        out.extend_from_slice(&data);
    }
    out
}

fn parse(bytes: &[u8]) -> XFile {
    match x::parse(bytes) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn every_encoding_reads_to_the_same_cube() {
    let text = cube_text("xof 0302txt 0032");
    assert_eq!(
        parse(text.as_bytes()),
        cube(header(Encoding::Text, FloatSize::F32, 2))
    );
    let text64 = cube_text("xof 0303txt 0064");
    assert_eq!(
        parse(text64.as_bytes()),
        cube(header(Encoding::Text, FloatSize::F64, 3))
    );
    let bin32 = cube_binary(b"xof 0302bin 0032");
    assert_eq!(
        parse(&bin32),
        cube(header(Encoding::Binary, FloatSize::F32, 2))
    );
    let bin64 = cube_binary(b"xof 0303bin 0064");
    assert_eq!(
        parse(&bin64),
        cube(header(Encoding::Binary, FloatSize::F64, 3))
    );
    // The 64-bit file really holds doubles: its float lists are twice the size.
    assert!(bin64.len() > bin32.len() + 4 * (24 + 18 + 16));

    let mut body = text.as_bytes()[16..].to_vec();
    body.extend_from_slice(b"        ");
    let tzip = mszip(b"xof 0302tzip0032", &body);
    assert_eq!(
        parse(&tzip),
        cube(header(Encoding::CompressedText, FloatSize::F32, 2))
    );
    // Binary has no padding to repeat, so its body is one deflate block.
    let bbody = &bin32[16..];
    let bzip = {
        let mut out = b"xof 0302bzip0032".to_vec();
        out.extend_from_slice(&((16 + bbody.len()) as u32).to_le_bytes());
        let data = miniz_oxide::deflate::compress_to_vec(bbody, 6);
        out.extend_from_slice(&(bbody.len() as u16).to_le_bytes());
        out.extend_from_slice(&((data.len() + 2) as u16).to_le_bytes());
        out.extend_from_slice(b"CK");
        out.extend_from_slice(&data);
        out
    };
    assert_eq!(
        parse(&bzip),
        cube(header(Encoding::CompressedBinary, FloatSize::F32, 2))
    );
}

#[test]
fn mszip_blocks_share_their_history() {
    // The second block's only content is a back-reference into the first block: with the
    // history reset between blocks it cannot be inflated.
    let mut body = cube_text("xof 0302txt 0032").into_bytes().split_off(16);
    body.extend_from_slice(b"        ");
    let bytes = mszip(b"xof 0302tzip0032", &body);
    assert!(x::parse(&bytes).is_ok());
    // The same stream with the blocks' order checked: a bad signature is located.
    let mut bad = bytes.clone();
    let ck = bad.windows(2).position(|w| w == b"CK").unwrap();
    bad[ck] = b'X';
    let e = x::parse(&bad).unwrap_err();
    assert_eq!(e.location.offset, ck as u64, "{e}");
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
}

#[test]
fn writer_round_trips_in_every_encoding() {
    let base = cube(header(Encoding::Text, FloatSize::F32, 3));
    let text = x::write_text(&base).unwrap();
    assert!(text.starts_with(b"xof 0303txt 0032"));
    assert_eq!(parse(&text), base);
    for size in [FloatSize::F32, FloatSize::F64] {
        let bin = x::write_binary(&base, size).unwrap();
        let expected = XFile {
            header: header(Encoding::Binary, size, 3),
            ..base.clone()
        };
        assert_eq!(parse(&bin), expected);
        assert_eq!(x::write(&expected).unwrap(), bin);
    }
    // Numbers that need more than six decimals, and Shift-JIS names, survive text.
    let mut odd = base.clone();
    odd.materials[0].power = 0.1 + 1e-7;
    odd.materials[0].texture = Some("テクスチャ.png*球.sph".into());
    odd.frames[0].name = "体".into();
    assert_eq!(parse(&x::write_text(&odd).unwrap()), odd);
    // What text cannot hold is refused, not written wrong.
    let mut spaced = base.clone();
    spaced.frames[0].name = "two words".into();
    let e = x::write_text(&spaced).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unwritable(_)), "{e}");
    assert!(x::write_binary(&spaced, FloatSize::F32).is_ok());
}

#[test]
fn the_cube_becomes_a_static_model_at_mmd_scale() {
    let file = cube(header(Encoding::Text, FloatSize::F32, 2));
    let (pmx, warnings) = x::to_pmx(&file, "cube");
    assert!(warnings.is_empty(), "{warnings:?}");
    // Each quad corner has its own normal: 6 faces × 4 corners, two triangles a quad.
    assert_eq!(pmx.vertices.len(), 24);
    assert_eq!(pmx.indices.len(), 36);
    assert_eq!(pmx.bones.len(), 1);
    assert!(
        pmx.vertices
            .iter()
            .all(|v| v.weights == odori_format::pmx::Weights::Bdef1 { bone: 0 })
    );
    assert_eq!(pmx.textures, ["tex.png", "metal.sph", "glow.spa"]);
    let [a, b] = &pmx.materials[..] else {
        panic!("{:?}", pmx.materials)
    };
    assert_eq!((a.index_count, b.index_count), (18, 18));
    assert_eq!((a.texture, a.sphere_texture, a.sphere_mode), (0, 1, 1));
    assert_eq!((b.texture, b.sphere_texture, b.sphere_mode), (-1, 2, 2));
    assert_eq!(b.diffuse, [0.0, 0.0, 1.0, 0.5]);
    assert_eq!(
        b.ambient,
        [0.25, 0.25, 0.75],
        "ambient is the emissive colour"
    );
    assert_eq!((b.specular, b.specular_power), ([0.5; 3], 8.0));
    // Positions: the frame's translation (1, 2, 3), then ×10.
    let first = &pmx.vertices[pmx.indices[0] as usize];
    assert_eq!(first.position, [0.0, 10.0, 20.0]);
    assert_eq!(first.normal, [0.0, 0.0, -1.0]);
    assert_eq!(first.uv, uv(0));
    // The fan of face 0 (corners 0 1 2 3) is (0 1 2), (0 2 3).
    let corner = |i: usize| pmx.vertices[pmx.indices[i] as usize].position;
    let expect = |p: usize| POSITIONS[p].map(|c| c * 10.0);
    let shifted = |p: usize| {
        let e = expect(p);
        [e[0] + 10.0, e[1] + 20.0, e[2] + 30.0]
    };
    for (i, p) in [0, 1, 2, 0, 2, 3].into_iter().enumerate() {
        assert_eq!(corner(i), shifted(p), "corner {i}");
    }
    // The model compiles as PMX: it writes and reads back.
    let bytes = odori_format::pmx::write(&pmx).unwrap();
    assert_eq!(odori_format::pmx::parse(&bytes).unwrap(), pmx);
}

#[test]
fn a_dangling_material_reference_is_a_warning() {
    let mut file = cube(header(Encoding::Text, FloatSize::F32, 2));
    file.materials.clear();
    let (pmx, warnings) = x::to_pmx(&file, "cube");
    assert_eq!(pmx.materials.len(), 2);
    assert!(
        warnings[0].contains("`Blue` names no material"),
        "{warnings:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Hostile input: each ends in an error located in the file, never a panic.

fn error(bytes: &[u8]) -> FormatError {
    match x::parse(bytes) {
        Ok(f) => panic!("parsed: {f:?}"),
        Err(e) => {
            assert_eq!(e.location.format, Format::X);
            assert!(e.location.offset <= bytes.len() as u64, "{e}");
            e
        }
    }
}

#[test]
fn every_truncation_fails_located_or_reads_a_prefix() {
    let text = cube_text("xof 0302txt 0032").into_bytes();
    let bin = cube_binary(b"xof 0302bin 0064");
    let full_text = parse(&text);
    let full_bin = parse(&bin);
    for (bytes, full) in [(&text, &full_text), (&bin, &full_bin)] {
        let mut failures = 0;
        for cut in 0..bytes.len() {
            match x::parse(&bytes[..cut]) {
                Err(e) => {
                    assert_eq!(e.location.format, Format::X);
                    assert!(e.location.offset <= cut as u64, "cut {cut}: {e}");
                    failures += 1;
                }
                // A cut between top-level objects is a whole file with fewer objects: the
                // full cube only when nothing but blanks was cut.
                Ok(f) => {
                    let blanks = bytes[cut..].iter().all(u8::is_ascii_whitespace);
                    assert_eq!(&f == full, blanks, "cut {cut}");
                }
            }
        }
        assert!(
            failures > bytes.len() * 9 / 10,
            "{failures} of {}",
            bytes.len()
        );
    }
    let e = error(&text[..200]);
    assert!(e.to_string().contains("line "), "{e}");
}

#[test]
fn bad_headers() {
    let e = error(b"xof 0302abc 0032");
    assert_eq!(
        (e.location.field, e.location.offset),
        ("encoding", 8),
        "{e}"
    );
    let e = error(b"xof 0302txt 0016");
    assert_eq!(e.location.field, "float size", "{e}");
    let e = error(b"xof 03");
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    let e = error(b"PMX ");
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
}

#[test]
fn huge_counts_fail_before_allocating() {
    // A vertex count of 4 billion: a Vec of that many positions would be 48 GB and abort
    // the test process; the reader compares it with the values left first.
    let text = b"xof 0302txt 0032\nMesh { 4294967295; 1.0; 2.0; 3.0; }";
    let e = error(text);
    assert!(e.to_string().contains("4294967295"), "{e}");
    assert!(e.to_string().contains("line 2"), "{e}");
    // A binary list claiming 2^31 floats in a few bytes.
    let mut t = Tokens::new(b"xof 0302bin 0032");
    t.name("Mesh").open().tok(7);
    t.out.extend_from_slice(&0x8000_0000u32.to_le_bytes());
    let e = error(&t.out);
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    assert_eq!(e.location.offset, 16 + 2 + 4 + 4 + 2 + 2, "{e}");
    // A string as long as the file is not.
    let mut t = Tokens::new(b"xof 0302bin 0032");
    t.tok(2);
    t.out.extend_from_slice(&u32::MAX.to_le_bytes());
    error(&t.out);
}

#[test]
fn deep_nesting_is_refused() {
    let mut text = b"xof 0302txt 0032\n".to_vec();
    for _ in 0..10_000 {
        text.extend_from_slice(b"Frame {");
    }
    let e = error(&text);
    assert!(e.to_string().contains("nested more than"), "{e}");
    let mut t = Tokens::new(b"xof 0302bin 0032");
    for _ in 0..10_000 {
        t.name("Frame").open();
    }
    let e = error(&t.out);
    assert!(e.to_string().contains("nested more than"), "{e}");
    // A template's braces too.
    let mut text = b"xof 0302txt 0032\ntemplate T ".to_vec();
    text.extend(std::iter::repeat_n(b'{', 10_000));
    error(&text);
}

#[test]
fn bad_tokens_and_members_are_located() {
    let e = error(b"xof 0302txt 0032\r\nMesh {\r\n 1;\r\n 0.0;0.0;\x01;\r\n}");
    assert!(e.to_string().contains("line 4"), "{e}");
    assert!(e.to_string().contains("unexpected byte 0x01"), "{e}");
    let e = error(b"xof 0302txt 0032\nTextureFilename { \"never closed; }");
    assert!(e.to_string().contains("not closed"), "{e}");
    let e = error(b"xof 0302txt 0032\nMesh { 1; 0.0;0.0;0.0;; 1; 3;0,1,2;; }");
    assert!(e.to_string().contains("index 1 out of range"), "{e}");
    let e = error(b"xof 0302txt 0032\nMesh { 1; 0.0;0.0;\"z\";; 0; }");
    assert!(e.to_string().contains("a vertex coordinate"), "{e}");
    let e = error(
        b"xof 0302txt 0032\nMesh { 1; 0.0;0.0;0.0;; 0; MeshMaterialList { 1; 1; 3;; Material { 1;1;1;1;; 1; 0;0;0;; 0;0;0;; } } }",
    );
    assert!(e.to_string().contains("material index 3"), "{e}");
    let e = error(
        b"xof 0302txt 0032\nMesh { 0; 0; MeshMaterialList { 2; 0; Material { 1;1;1;1;; 1; 0;0;0;; 0;0;0;; } } }",
    );
    assert!(
        e.to_string().contains("declares 2 materials and holds 1"),
        "{e}"
    );
    let e = error(b"xof 0302txt 0032\nMesh { 1; 0.0;0.0;1e40;; 0; }");
    assert!(e.to_string().contains("finite"), "{e}");
    let e = error(b"xof 0302txt 0032\nMesh { } }");
    assert!(e.to_string().contains("expected a data object"), "{e}");
    // Binary: an unknown token code, and a string without its terminator token.
    let mut t = Tokens::new(b"xof 0302bin 0032");
    t.name("Mesh").open().tok(99);
    let e = error(&t.out);
    assert_eq!(e.location.offset, 16 + 10 + 2, "{e}");
    assert!(e.to_string().contains("unknown binary token 99"), "{e}");
    let mut t = Tokens::new(b"xof 0302bin 0032");
    t.name("TextureFilename").open().tok(2);
    t.out.extend_from_slice(&1u32.to_le_bytes());
    t.out.push(b'a');
    t.tok(11);
    let e = error(&t.out);
    assert!(e.to_string().contains("`;` or `,`"), "{e}");
    // Invalid Shift-JIS in a name.
    let e = error(b"xof 0302txt 0032\nFrame \x81\x20 { }");
    assert!(e.to_string().contains("Shift-JIS"), "{e}");
}

#[test]
fn read_path_knows_x_and_vac_files() {
    let dir = std::env::temp_dir().join(format!("odori-x-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xp = dir.join("cube.x");
    std::fs::write(&xp, cube_text("xof 0302txt 0032")).unwrap();
    let (doc, _) = odori_format::read_path(&xp).unwrap();
    assert!(matches!(doc, odori_format::Document::X(_)));
    let vp = dir.join("cube.vac");
    std::fs::write(&vp, b"cube\r\ncube.x\r\n1.0\r\n0,0,0\r\n0,0,0\r\n\r\n").unwrap();
    let (doc, _) = odori_format::read_path(&vp).unwrap();
    assert!(matches!(doc, odori_format::Document::Vac(_)));
    let e = odori_format::read_path(dir.join("missing.x")).unwrap_err();
    assert!(e.to_string().contains("missing.x"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// .vac

#[test]
fn vac_reads_writes_and_reads_back() {
    let text = "ネギ\r\nネギ.x\r\n10.0\r\n0.5,-1.25,2\r\n0,90,-45.5\r\n右手首\r\n1\r\n";
    let v = vac::parse(&encode_sjis(text)).unwrap();
    assert_eq!(v.name, "ネギ");
    assert_eq!(v.x_file, "ネギ.x");
    assert_eq!(v.scale, 10.0);
    assert_eq!(v.position, [0.5, -1.25, 2.0]);
    assert_eq!(v.rotation, [0.0, 90.0, -45.5]);
    assert_eq!(v.bone, "右手首");
    assert_eq!(v.shadow, Some(true));
    let written = vac::write(&v);
    assert_eq!(vac::parse(&written).unwrap(), v);
    // Without the shadow line and the bone, LF line ends.
    let plain = vac::parse(b"stage\nstage.x\n1\n0,0,0\n0,0,0\n").unwrap();
    assert_eq!((plain.bone.as_str(), plain.shadow), ("", None));
    assert_eq!(vac::parse(&vac::write(&plain)).unwrap(), plain);
}

#[test]
fn bad_vac_lines_are_located() {
    let e = vac::parse(b"a\r\na.x\r\n1\r\n0,zero,0\r\n0,0,0\r\n").unwrap_err();
    assert_eq!(e.location.format, Format::Vac);
    assert_eq!(
        (e.location.field, e.location.offset),
        ("position", 11),
        "{e}"
    );
    assert!(e.to_string().contains("line 4"), "{e}");
    let e = vac::parse(b"a\r\na.x\r\n1\r\n").unwrap_err();
    assert!(e.to_string().contains("the position (line 4)"), "{e}");
    let e = vac::parse(b"a\r\na.x\r\n1\r\n0,0,0\r\n0,0,0,0\r\n").unwrap_err();
    assert_eq!(e.location.field, "rotation", "{e}");
    let e = vac::parse(b"a\r\na.x\r\n1\r\n0,0,0\r\n0,0,0\r\nbone\r\nmaybe\r\n").unwrap_err();
    assert_eq!(e.location.field, "shadow", "{e}");
    let e = vac::parse(b"a\r\n\x82\r\n").unwrap_err();
    assert!(e.to_string().contains("Shift-JIS"), "{e}");
    for cut in 0..40 {
        let full = b"name\r\nname.x\r\n1.5\r\n1,2,3\r\n4,5,6\r\nbone\r\n0\r\n";
        let _ = vac::parse(&full[..cut.min(full.len())]);
    }
}
