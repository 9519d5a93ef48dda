//! Look at a deformed model: `cargo run -p odori-deform --example look -- MODEL [MOTION]
//! [FRAME]` writes `out/look_<model>_<frame>.png`, the model seen along the Z axis (left) and
//! along the X axis (right), shaded by the deformed normals. Default: Gene_light.pmx
//! dancing wavefile_v2.vmd at frame 600 from `../shared`.

#[path = "support/canvas.rs"]
mod canvas;

use canvas::Canvas;
use glam::Vec3;
use odori_deform::{Deformed, Mesh, deform};
use odori_format::Document;
use odori_pose::{Instance, Model, Motion};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets");
    let model_path = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| shared.join("gene/Gene_light.pmx"));
    let motion_path = args
        .get(1)
        .map(PathBuf::from)
        .or_else(|| Some(shared.join("wavefile/wavefile_v2.vmd")));
    let frame: f32 = args.get(2).and_then(|f| f.parse().ok()).unwrap_or(600.0);

    let (doc, _) = odori_format::read_path(&model_path).expect("reading the model");
    let (model, mesh) = match &doc {
        Document::Pmx(p) => (Model::from_pmx(p).unwrap(), Mesh::from_pmx(p)),
        Document::Pmd(p) => (Model::from_pmd(p).unwrap(), Mesh::from_pmd(p)),
        _ => panic!("not a model"),
    };
    let motion = match motion_path.filter(|p| p.exists()) {
        Some(p) => Motion::from_vmd(&model, &odori_format::Vmd::read(p).expect("motion")),
        None => Motion::empty(&model),
    };
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, frame).unwrap();
    let mut out = Deformed::new(&mesh);
    deform(
        &mesh,
        inst.skinning(),
        inst.effective_morph_weights(),
        &mut out,
    );

    let (w, h) = (1000u32, 900u32);
    let mut canvas = Canvas::new(w, h);
    let lo = out
        .positions
        .iter()
        .fold(Vec3::splat(f32::MAX), |a, &p| a.min(p.into()));
    let hi = out
        .positions
        .iter()
        .fold(Vec3::splat(f32::MIN), |a, &p| a.max(p.into()));
    let size = (hi - lo).max_element();
    let scale = 0.9 * h as f32 / size;
    let light = Vec3::new(0.3, 0.5, -1.0).normalize();
    // Left: looking along +Z (MMD's camera direction; the rasteriser keeps the larger z, so
    // z is negated). Right: looking along the X axis.
    type View = fn(Vec3) -> Vec3;
    let views: [(f32, View); 2] = [
        (0.25, |p| Vec3::new(p.x, p.y, -p.z)),
        (0.75, |p| Vec3::new(p.z, p.y, p.x)),
    ];
    let centre = (lo + hi) / 2.0;
    for (cx, view) in views {
        for tri in mesh.indices().chunks_exact(3) {
            let p: Vec<Vec3> = tri
                .iter()
                .map(|&i| view(out.positions[i as usize].into()))
                .collect();
            let n: Vec3 = tri
                .iter()
                .map(|&i| Vec3::from(out.normals[i as usize]))
                .sum::<Vec3>()
                .normalize_or_zero();
            let k = 0.25 + 0.75 * n.dot(light).abs();
            let shade = (60.0 + 180.0 * k) as u8;
            let c = [shade, shade, (shade as f32 * 0.9 + 20.0) as u8];
            let c0 = view(centre);
            let s = [p[0], p[1], p[2]].map(|q| {
                Vec3::new(
                    cx * w as f32 + (q.x - c0.x) * scale,
                    h as f32 / 2.0 - (q.y - c0.y) * scale,
                    q.z,
                )
            });
            canvas.triangle(s, c);
        }
    }
    canvas.text(10, 10, &format!("{frame}"), [0, 0, 0]);
    let stem = model_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../out");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("look_{stem}_{frame}.png"));
    canvas.img.save(&path).unwrap();
    println!("wrote {}", path.display());
}
