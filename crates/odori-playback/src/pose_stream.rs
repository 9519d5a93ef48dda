//! A pose stream: every frame of a render's range as the player hands it to the renderer
//! (per model the skinning matrices, effective morph weights, material states, visibility and
//! bounds; the camera, the light and the self-shadow state), computed once with physics and kept in memory or in a
//! compact file. Physics is sequential, drawing is not: a render can take its frames from a
//! stream in place of simulating ([`crate::offline::PoseSource::Stream`]), so any slice of the
//! range is drawn on its own — on another thread, process or machine — and shows, pixel for
//! pixel, what a render of the whole range shows at those frames.
//!
//! The file (`.odoriposes`): little-endian throughout.
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic `ODORIPS2` |
//! | 4 + 4 + 4 | the range: first MMD frame (f32), step (f32), frame count (u32) |
//! | 4 | model count (u32); then per model bones, morphs, materials (3 × u32) |
//! | 1 + 1 | whether the frames carry a camera, a light |
//! | per frame | camera (8 f32 + 1 byte), light (6 f32: colour, direction; then the self-shadow mode byte, 0 off, 1 mode 1, 2 mode 2, and its distance f32), then per model: visible (1 byte), bounds (6 f32), skinning (12 f32 a bone: the 3×4 affine, columns), morph weights (f32 each), material states (56 f32 each: mul then add) |
//!
//! Every f32 is stored as its bits, so a stream read back is the stream written. Which models
//! are stages is the scene's, not the stream's: it is taken from the scene a stream is drawn
//! with.

use crate::error::PlaybackError;
use crate::frame::{Frame, ModelFrame};
use crate::offline::FrameRange;
use crate::player::Player;
use crate::scene::{Role, Scene};
use glam::{Affine3A, Vec3, Vec4};
use odori_pose::MaterialState;
use odori_pose::light::{SelfShadow, ShadowMode};
use odori_pose::material::MaterialValues;
use odori_render::Light;
use odori_render::camera::CameraPose;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

const MAGIC: &[u8; 8] = b"ODORIPS2";
/// Floats in one material state: `mul` then `add`, each 28.
const MATERIAL_FLOATS: usize = 56;
const CAMERA_BYTES: usize = 8 * 4 + 1;
const LIGHT_BYTES: usize = 6 * 4 + 1 + 4;

/// What one model's frames hold: counts fixed for the whole stream (and checked against the
/// scene a stream is drawn with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLayout {
    pub bones: u32,
    pub morphs: u32,
    pub materials: u32,
}

impl ModelLayout {
    fn frame_bytes(&self) -> usize {
        1 + 6 * 4
            + self.bones as usize * 12 * 4
            + self.morphs as usize * 4
            + self.materials as usize * MATERIAL_FLOATS * 4
    }
}

/// Every frame of a range, posed with physics, ready to draw. Immutable once baked; shared
/// between the threads drawing its chunks.
#[derive(Clone)]
pub struct PoseStream {
    range: FrameRange,
    layout: Vec<ModelLayout>,
    frames: Vec<Frame>,
}

impl PoseStream {
    /// Evaluate `range` with `player`, frame by frame in order exactly as
    /// [`crate::offline::render`] does, keeping what the renderer is given. The player's
    /// deformation is turned off (a stream holds skinning matrices; the vertices are deformed
    /// from them when drawn). `progress` is called once a frame; `cancel` stops early
    /// (`None` is returned).
    pub fn bake(
        player: Player,
        range: FrameRange,
        progress: &dyn Fn(),
        cancel: &AtomicBool,
    ) -> Option<PoseStream> {
        let scene = player.scene().clone();
        let mut player = Player::new(
            scene.clone(),
            crate::PlayerOptions {
                deform: false,
                ..player.options()
            },
        );
        let layout = layout_of(&scene);
        let mut frames = Vec::with_capacity(range.count);
        for k in 0..range.count {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let mut f = Frame::default();
            player.evaluate_at(range.frame(k) as f64, &mut f);
            frames.push(f);
            progress();
        }
        Some(PoseStream {
            range,
            layout,
            frames,
        })
    }

    /// The range the stream holds: output frame `k` shows MMD frame `range().frame(k)`.
    pub fn range(&self) -> FrameRange {
        self.range
    }

    /// Frames held.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Per model, what its frames hold.
    pub fn layout(&self) -> &[ModelLayout] {
        &self.layout
    }

    /// Output frame `k` as the player handed it out (no deformed vertices).
    pub fn frame(&self, k: usize) -> Option<&Frame> {
        self.frames.get(k)
    }

    /// Whether the stream was baked from `scene` over `range` (the same models with the
    /// same counts, the same first frame, step and length); the message says what differs.
    pub fn check(&self, scene: &Scene, range: FrameRange) -> Result<(), String> {
        let want = layout_of(scene);
        if want != self.layout {
            return Err(format!(
                "the pose stream was baked for other models ({:?}), not this scene's ({:?})",
                self.layout, want
            ));
        }
        if range != self.range {
            return Err(format!(
                "the pose stream holds {} frames from MMD frame {} every {}, the render asks \
                 for {} from {} every {}",
                self.range.count,
                self.range.start,
                self.range.step,
                range.count,
                range.start,
                range.step
            ));
        }
        Ok(())
    }

    /// The stream as a file's bytes (see the module's table).
    pub fn to_bytes(&self) -> Vec<u8> {
        let per_frame = frame_bytes(&self.layout, self.has_camera(), self.has_light());
        let mut out = Vec::with_capacity(header_bytes(self.layout.len()) + per_frame * self.len());
        out.extend_from_slice(MAGIC);
        put_f32(&mut out, self.range.start);
        put_f32(&mut out, self.range.step);
        out.extend_from_slice(&(self.range.count as u32).to_le_bytes());
        out.extend_from_slice(&(self.layout.len() as u32).to_le_bytes());
        for l in &self.layout {
            for n in [l.bones, l.morphs, l.materials] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        out.push(self.has_camera() as u8);
        out.push(self.has_light() as u8);
        for f in &self.frames {
            if let Some(c) = f.camera {
                put_vec3(&mut out, c.target);
                put_vec3(&mut out, c.rotation);
                put_f32(&mut out, c.distance);
                put_f32(&mut out, c.fov);
                out.push(c.orthographic as u8);
            }
            if let Some(l) = f.light {
                put_vec3(&mut out, l.color);
                put_vec3(&mut out, l.direction);
                out.push(match l.shadow.mode {
                    ShadowMode::Off => 0,
                    ShadowMode::Mode1 => 1,
                    ShadowMode::Mode2 => 2,
                });
                put_f32(&mut out, l.shadow.distance);
            }
            for m in &f.models {
                out.push(m.visible as u8);
                put_vec3(&mut out, m.bounds.0);
                put_vec3(&mut out, m.bounds.1);
                for s in &m.skinning {
                    for c in s.to_cols_array() {
                        put_f32(&mut out, c);
                    }
                }
                for &w in &m.morph_weights {
                    put_f32(&mut out, w);
                }
                for s in &m.materials {
                    put_material(&mut out, &s.mul);
                    put_material(&mut out, &s.add);
                }
            }
        }
        out
    }

    /// A stream from [`PoseStream::to_bytes`]'s bytes; `source` names them in messages.
    /// The header's counts are checked against the length before anything is allocated.
    pub fn from_bytes(bytes: &[u8], source: &Path) -> Result<PoseStream, PlaybackError> {
        let bad = |at: usize, message: String| PlaybackError::Stream {
            path: source.to_path_buf(),
            message: format!("byte {at}: {message}"),
        };
        let mut r = Reader { bytes, at: 0 };
        let magic = r
            .take(8)
            .ok_or_else(|| bad(0, "shorter than a header".into()))?;
        if magic != MAGIC {
            return Err(bad(
                0,
                "not an odori pose stream (no ODORIPS1 magic)".into(),
            ));
        }
        let short = |at| bad(at, "the file ends inside the header".into());
        let start = r.f32().ok_or_else(|| short(r.at))?;
        let step = r.f32().ok_or_else(|| short(r.at))?;
        let count = r.u32().ok_or_else(|| short(r.at))? as usize;
        if !(start.is_finite() && step.is_finite() && step > 0.0) {
            return Err(bad(
                8,
                format!("range from {start} every {step} is not one"),
            ));
        }
        let models_at = r.at;
        let models = r.u32().ok_or_else(|| short(r.at))? as usize;
        if models > bytes.len() / 12 {
            return Err(bad(
                models_at,
                format!("{models} models cannot fit in the file"),
            ));
        }
        let mut layout = Vec::with_capacity(models);
        for _ in 0..models {
            let mut n = [0u32; 3];
            for v in &mut n {
                *v = r.u32().ok_or_else(|| short(r.at))?;
            }
            layout.push(ModelLayout {
                bones: n[0],
                morphs: n[1],
                materials: n[2],
            });
        }
        let flags_at = r.at;
        let flags = r.take(2).ok_or_else(|| short(flags_at))?;
        let (has_camera, has_light) = (flags[0] != 0, flags[1] != 0);
        let per_frame = frame_bytes(&layout, has_camera, has_light);
        let want = (per_frame as u128) * count as u128;
        let have = (bytes.len() - r.at) as u128;
        if want != have {
            return Err(bad(
                r.at,
                format!(
                    "the header promises {count} frames of {per_frame} bytes ({want}), the \
                     file holds {have} bytes after it"
                ),
            ));
        }
        let mut frames = Vec::with_capacity(count);
        for _ in 0..count {
            // Lengths were checked above: every read below is in the file.
            let mut f = Frame::default();
            if has_camera {
                f.camera = Some(CameraPose {
                    target: r.vec3(),
                    rotation: r.vec3(),
                    distance: r.f32_in(),
                    fov: r.f32_in(),
                    orthographic: r.byte() != 0,
                });
            }
            if has_light {
                f.light = Some(Light {
                    color: r.vec3(),
                    direction: r.vec3(),
                    shadow: SelfShadow {
                        mode: ShadowMode::from_byte(r.byte()),
                        distance: r.f32_in(),
                    },
                });
            }
            for l in &layout {
                let mut m = ModelFrame {
                    visible: r.byte() != 0,
                    bounds: (r.vec3(), r.vec3()),
                    ..ModelFrame::default()
                };
                m.skinning = (0..l.bones)
                    .map(|_| {
                        let c: [f32; 12] = std::array::from_fn(|_| r.f32_in());
                        Affine3A::from_cols_array(&c)
                    })
                    .collect();
                m.morph_weights = (0..l.morphs).map(|_| r.f32_in()).collect();
                m.materials = (0..l.materials)
                    .map(|_| MaterialState {
                        mul: r.material(),
                        add: r.material(),
                    })
                    .collect();
                f.models.push(m);
            }
            frames.push(f);
        }
        let stream = PoseStream {
            range: FrameRange { start, step, count },
            layout,
            frames,
        };
        Ok(stream.with_frame_numbers())
    }

    /// Write the stream to `path` (see the module's table).
    pub fn write(&self, path: &Path) -> Result<(), PlaybackError> {
        crate::output::check_file(path)?;
        std::fs::write(path, self.to_bytes()).map_err(|source| PlaybackError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Read a stream [`PoseStream::write`] wrote.
    pub fn read(path: &Path) -> Result<PoseStream, PlaybackError> {
        let bytes = std::fs::read(path).map_err(|e| PlaybackError::Stream {
            path: path.to_path_buf(),
            message: format!("cannot read: {e}"),
        })?;
        PoseStream::from_bytes(&bytes, path)
    }

    /// Each frame's MMD frame number from the range (not stored: it is the range's).
    fn with_frame_numbers(mut self) -> PoseStream {
        for (k, f) in self.frames.iter_mut().enumerate() {
            f.frame = self.range.frame(k);
        }
        self
    }

    fn has_camera(&self) -> bool {
        self.frames.first().is_some_and(|f| f.camera.is_some())
    }

    fn has_light(&self) -> bool {
        self.frames.first().is_some_and(|f| f.light.is_some())
    }

    /// Copy output frame `k` into `out`, reusing its buffers (nothing is allocated once they
    /// have grown), and deform its vertices from the skinning matrices when `deform` is on.
    pub(crate) fn fill(&self, scene: &Scene, k: usize, deform: bool, out: &mut Frame) {
        let f = &self.frames[k];
        out.frame = f.frame;
        out.camera = f.camera;
        out.light = f.light;
        out.models.resize_with(f.models.len(), ModelFrame::default);
        for ((o, m), sm) in out.models.iter_mut().zip(&f.models).zip(scene.models()) {
            o.skinning.clone_from(&m.skinning);
            o.morph_weights.clone_from(&m.morph_weights);
            o.materials.clone_from(&m.materials);
            o.visible = m.visible;
            o.bounds = m.bounds;
            o.stage = *sm.role() == Role::Stage;
            if deform {
                odori_deform::deform(
                    sm.asset().mesh(),
                    &o.skinning,
                    &o.morph_weights,
                    &mut o.vertices,
                );
            }
        }
    }
}

fn layout_of(scene: &Scene) -> Vec<ModelLayout> {
    (scene.models().iter())
        .map(|m| {
            let pose = m.asset().pose();
            ModelLayout {
                bones: pose.bone_count() as u32,
                morphs: pose.morph_count() as u32,
                materials: pose.materials().len() as u32,
            }
        })
        .collect()
}

fn header_bytes(models: usize) -> usize {
    8 + 12 + 4 + 12 * models + 2
}

fn frame_bytes(layout: &[ModelLayout], camera: bool, light: bool) -> usize {
    layout.iter().map(ModelLayout::frame_bytes).sum::<usize>()
        + if camera { CAMERA_BYTES } else { 0 }
        + if light { LIGHT_BYTES } else { 0 }
}

fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_bits().to_le_bytes());
}

fn put_vec3(out: &mut Vec<u8>, v: Vec3) {
    for c in v.to_array() {
        put_f32(out, c);
    }
}

fn put_material(out: &mut Vec<u8>, v: &MaterialValues) {
    let mut put4 = |v: Vec4| v.to_array().into_iter().for_each(|c| put_f32(out, c));
    put4(v.diffuse);
    put4(v.edge_color);
    put4(v.texture_tint);
    put4(v.sphere_tint);
    put4(v.toon_tint);
    put_vec3(out, v.specular);
    put_vec3(out, v.ambient);
    put_f32(out, v.specular_power);
    put_f32(out, v.edge_size);
}

/// A cursor over a stream's bytes. The checked reads are for the header; the `_in` reads
/// are for the frames, whose length was checked as a whole first.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at + n)?;
        self.at += n;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|s| u32::from_le_bytes(s.try_into().expect("four bytes")))
    }

    fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits)
    }

    fn f32_in(&mut self) -> f32 {
        self.f32().expect("the frames' length was checked")
    }

    fn byte(&mut self) -> u8 {
        self.take(1).expect("the frames' length was checked")[0]
    }

    fn vec3(&mut self) -> Vec3 {
        Vec3::new(self.f32_in(), self.f32_in(), self.f32_in())
    }

    fn vec4(&mut self) -> Vec4 {
        Vec4::new(self.f32_in(), self.f32_in(), self.f32_in(), self.f32_in())
    }

    fn material(&mut self) -> MaterialValues {
        let diffuse = self.vec4();
        let edge_color = self.vec4();
        let texture_tint = self.vec4();
        let sphere_tint = self.vec4();
        let toon_tint = self.vec4();
        MaterialValues {
            diffuse,
            edge_color,
            texture_tint,
            sphere_tint,
            toon_tint,
            specular: self.vec3(),
            ambient: self.vec3(),
            specular_power: self.f32_in(),
            edge_size: self.f32_in(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame's light, self-shadow state included, comes back from the bytes as written
    /// (the stream once dropped the self-shadow keys: a chunked render drew MMD's default
    /// shadow where the motion had turned it off).
    #[test]
    fn the_light_and_its_self_shadow_survive_the_bytes() {
        let light = Light {
            color: Vec3::new(0.2, 0.4, 0.6),
            direction: Vec3::new(0.3, -1.0, 0.1),
            shadow: SelfShadow {
                mode: ShadowMode::Mode2,
                distance: 0.0375,
            },
        };
        let off = Light {
            shadow: SelfShadow {
                mode: ShadowMode::Off,
                ..light.shadow
            },
            ..light
        };
        let frames = [light, off]
            .map(|l| Frame {
                light: Some(l),
                models: vec![ModelFrame::default()],
                ..Frame::default()
            })
            .to_vec();
        let stream = PoseStream {
            range: FrameRange {
                start: 0.0,
                step: 1.0,
                count: 2,
            },
            layout: vec![ModelLayout {
                bones: 0,
                morphs: 0,
                materials: 0,
            }],
            frames,
        };
        let back = PoseStream::from_bytes(&stream.to_bytes(), Path::new("test")).unwrap();
        assert_eq!(back.frame(0).unwrap().light, Some(light));
        assert_eq!(back.frame(1).unwrap().light, Some(off));
    }
}
