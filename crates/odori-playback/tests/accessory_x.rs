//! A DirectX `.x` accessory (and a `.vac` naming it) loads as a model every front end can
//! draw: one root bone, the file's materials and textures, MMD's tenfold accessory size.
//!
//! Evidence: the accessory is built here by hand (a quad and a triangle, two materials, MMD's
//! `texture*sphere` name), so the expected vertex, index and material figures follow from its
//! geometry; the tenfold size is nanoem's `Accessory::kInitialWorldMatrix` (MMD's accessory
//! unit), the ambient-from-emissive rule nanoem's accessory conversion.

use odori_format::x::{
    self, Encoding, FloatSize, Header, Material, MaterialList, MaterialSlot, Mesh, MeshNormals,
    XFile,
};
use odori_playback::ModelAsset;
use odori_render::model::{SphereMode, ToonRef};

fn material(color: [f32; 4], emissive: [f32; 3], texture: &str) -> Material {
    Material {
        name: String::new(),
        face_color: color,
        power: 12.0,
        specular: [0.5; 3],
        emissive,
        texture: Some(texture.into()),
    }
}

fn prop() -> XFile {
    let mesh = Mesh {
        name: "Prop".into(),
        positions: vec![
            [0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 2.0],
        ],
        faces: vec![vec![0, 1, 2, 3], vec![0, 3, 4]],
        normals: Some(MeshNormals {
            normals: vec![[0.0, 0.0, -1.0], [0.0, -1.0, 0.0]],
            faces: vec![vec![0; 4], vec![1; 3]],
        }),
        uvs: Some(vec![
            [0.0, 0.0],
            [0.0, 1.0],
            [1.0, 1.0],
            [1.0, 0.0],
            [0.5, 0.5],
        ]),
        colors: None,
        material_list: Some(MaterialList {
            face_materials: vec![0, 1],
            materials: vec![
                MaterialSlot::Inline(material(
                    [1.0, 1.0, 1.0, 1.0],
                    [0.5; 3],
                    "leek.png*shine.sph",
                )),
                MaterialSlot::Inline(material([0.2, 0.8, 0.2, 0.5], [0.1; 3], "stem.bmp")),
            ],
        }),
    };
    XFile {
        header: Header::new(Encoding::Text, FloatSize::F32),
        materials: Vec::new(),
        frames: Vec::new(),
        meshes: vec![mesh],
    }
}

#[test]
fn a_dot_x_and_its_vac_load_as_one_bone_static_models() {
    let dir = std::env::temp_dir().join(format!("odori-accessory-x-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("props")).unwrap();
    let x_path = dir.join("props").join("leek.x");
    std::fs::write(&x_path, x::write_text(&prop()).unwrap()).unwrap();
    let vac_path = dir.join("leek.vac");
    let vac = odori_format::Vac {
        name: "leek".into(),
        x_file: "props\\leek.x".into(),
        scale: 1.0,
        position: [0.0; 3],
        rotation: [0.0; 3],
        bone: "右手首".into(),
        shadow: None,
    };
    std::fs::write(&vac_path, odori_format::vac::write(&vac)).unwrap();

    for path in [&x_path, &vac_path] {
        let asset = ModelAsset::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(asset.pose().bone_count(), 1, "{}", path.display());
        let render = asset.render();
        // Quad: 4 corners, triangle: 3 (their normals differ, so no corner is shared).
        assert_eq!(render.uv1.len(), 7);
        assert_eq!(render.indices.len(), 6 + 3);
        let [a, b] = &render.materials[..] else {
            panic!("{} materials", render.materials.len())
        };
        assert_eq!(a.texture.as_deref(), Some("leek.png"));
        assert_eq!(a.sphere.as_deref(), Some("shine.sph"));
        assert_eq!(a.sphere_mode, SphereMode::Multiply);
        assert_eq!(a.ambient.to_array(), [0.5; 3]);
        assert_eq!(b.texture.as_deref(), Some("stem.bmp"));
        assert_eq!(b.sphere, None);
        assert_eq!(b.diffuse.to_array(), [0.2, 0.8, 0.2, 0.5]);
        assert!(!a.edge && !b.edge, "accessories have no edge");
        assert_eq!((&a.toon, &b.toon), (&ToonRef::None, &ToonRef::None));
        // One .x unit is ten MMD units.
        let (lo, hi) = render.bounds;
        assert_eq!(lo.to_array(), [0.0, 0.0, 0.0]);
        assert_eq!(hi.to_array(), [10.0, 10.0, 20.0]);
        assert!(asset.physics().diagnostics.is_empty());
        assert!(asset.warnings().is_empty(), "{:?}", asset.warnings());
    }

    // A .vac whose .x lies outside its folder is refused, naming the file.
    let escaping = odori_format::Vac {
        x_file: "..\\elsewhere.x".into(),
        ..vac
    };
    std::fs::write(&vac_path, odori_format::vac::write(&escaping)).unwrap();
    let e = ModelAsset::load(&vac_path)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("leek.vac") && e.contains("not inside"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
