//! `odori pose`: pose JSON (`shared/docs/pose-json.md`) at chosen frames.

use crate::{frames, load};
use anyhow::{Context, Result};
use odori_pose::Instance;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

#[derive(Serialize)]
struct Generator {
    tool: String,
    physics: bool,
    ik: bool,
}

#[derive(Serialize)]
struct ModelRef {
    path: String,
    name: String,
    format: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Bone {
    index: usize,
    name: String,
    parent: i64,
    layer: i32,
    after_physics: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    order_dependent: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Frame {
    frame: f32,
    world: Vec<[f32; 16]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    morph_weights: Option<Vec<f32>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Dump {
    generator: Generator,
    model: ModelRef,
    motions: Vec<String>,
    bones: Vec<Bone>,
    #[serde(skip_serializing_if = "Option::is_none")]
    morph_names: Option<Vec<String>>,
    frames: Vec<Frame>,
}

pub fn run(
    model_path: &Path,
    motion_paths: &[std::path::PathBuf],
    spec: &str,
    ik: bool,
    morphs: bool,
    output: Option<&Path>,
    verbose: bool,
) -> Result<()> {
    let frame_list = frames::parse(spec)?;
    odori_playback::requested_frames::check(&frame_list, false)
        .map_err(|e| anyhow::anyhow!("--frames {spec}: {e}"))?;
    if let Some(p) = output {
        crate::output::check_file(p)?;
    }
    let asset = load::model(model_path)?;
    let model = asset.pose();
    let files = load::motion_files(motion_paths)?;
    let motion = load::bind(&asset, &files, verbose);
    let mut inst = Instance::new(model, &motion);
    inst.options_mut().ik = ik;
    let mut frames_out = Vec::with_capacity(frame_list.len());
    for &f in &frame_list {
        inst.evaluate(model, &motion, f)?;
        frames_out.push(Frame {
            frame: f,
            world: (0..model.bone_count())
                .map(|b| inst.world_matrix(b).to_cols_array())
                .collect(),
            morph_weights: morphs.then(|| inst.effective_morph_weights().to_vec()),
        });
    }
    let dump = Dump {
        generator: Generator {
            tool: format!("odori {}", env!("CARGO_PKG_VERSION")),
            physics: false,
            ik,
        },
        model: ModelRef {
            path: model_path.display().to_string(),
            name: model.name().to_string(),
            format: match model.source() {
                odori_pose::model::SourceFormat::Pmd => "PMD",
                _ => "PMX",
            },
        },
        motions: motion_paths
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        bones: (0..model.bone_count())
            .map(|b| Bone {
                index: b,
                name: model.bone_names()[b].clone(),
                parent: if model.parents()[b] == odori_pose::model::NONE {
                    -1
                } else {
                    model.parents()[b] as i64
                },
                layer: model.layers()[b],
                after_physics: model.after_physics()[b],
                order_dependent: model.order_dependent()[b],
            })
            .collect(),
        morph_names: morphs.then(|| model.morphs().iter().map(|m| m.name.clone()).collect()),
        frames: frames_out,
    };
    let text = serde_json::to_string(&dump)?;
    match output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?,
        None => {
            let mut out = crate::stdout::stdout();
            out.write_all(text.as_bytes())?;
            out.write_all(b"\n")?;
            out.flush()?;
        }
    }
    Ok(())
}
