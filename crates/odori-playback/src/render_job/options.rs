//! The vocabulary of a render's options: the choices (encoder, skinning, backend), the range
//! and size with their parsers and checks, what `--msaa` and `--fast` mean, and how messages
//! name an option (the command line's `--size`, Python's `size=`).

use crate::choice::Choice;

/// What `--msaa` and `--fast` ask for, as (MSAA samples, shadow-map size), for a render and
/// for the window alike. MSAA 4 unless told: without multisampling the one-pixel
/// inverted-hull outlines break into dashes. `fast` trades that for speed: MSAA 1 unless
/// `msaa` is given, and a 1024-texel shadow map instead of one that follows the output size
/// (0).
pub fn quality(msaa: Option<u32>, fast: bool) -> (u32, u32) {
    (
        msaa.unwrap_or(if fast { 1 } else { 4 }),
        if fast { 1024 } else { 0 },
    )
}

/// Which MP4 encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EncoderChoice {
    /// The built-in encoder (the same as `Builtin`; kept so scripts that name it work).
    #[default]
    Auto,
    /// OpenH264, in-process (needs nothing installed).
    Builtin,
    /// An installed ffmpeg (libx264 + AAC).
    Ffmpeg,
}

/// Where vertices are skinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SkinningChoice {
    /// GPU on a hardware adapter, CPU on a software rasteriser.
    #[default]
    Auto,
    /// odori-deform, SIMD + threads.
    Cpu,
    /// A compute shader.
    Gpu,
}

/// Which renderer draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// A hardware adapter when there is one, else the CPU rasteriser (never a software
    /// adapter: `odori_render::backend::choose`).
    #[default]
    Auto,
    /// wgpu only (no adapter is an error).
    Gpu,
    /// odori's own CPU rasteriser (needs no driver).
    Cpu,
}

impl Choice for EncoderChoice {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "auto",
            EncoderChoice::Auto,
            "the built-in encoder (kept so scripts that name it work)",
        ),
        (
            "builtin",
            EncoderChoice::Builtin,
            "OpenH264, in-process (needs nothing installed)",
        ),
        (
            "ffmpeg",
            EncoderChoice::Ffmpeg,
            "an installed ffmpeg (libx264 + AAC)",
        ),
    ];
}

impl Choice for SkinningChoice {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "auto",
            SkinningChoice::Auto,
            "GPU on a hardware adapter, CPU on a software rasteriser",
        ),
        ("cpu", SkinningChoice::Cpu, "odori-deform, SIMD + threads"),
        ("gpu", SkinningChoice::Gpu, "a compute shader"),
    ];
}

impl Choice for BackendChoice {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "auto",
            BackendChoice::Auto,
            "a GPU when there is one, else odori's CPU rasteriser (faster than a software adapter)",
        ),
        (
            "gpu",
            BackendChoice::Gpu,
            "wgpu on any adapter, software ones included (no adapter is an error)",
        ),
        (
            "cpu",
            BackendChoice::Cpu,
            "odori's own CPU rasteriser (needs no driver)",
        ),
    ];
}

/// MMD frames `start` to `stop` inclusive; `stop` left out: the end of the motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub start: f32,
    pub stop: Option<f32>,
}

impl Range {
    /// Checked: finite, the start at or after frame 0, the end not before the start.
    pub fn new(start: f32, stop: Option<f32>) -> Result<Range, String> {
        if !start.is_finite() || stop.is_some_and(|b| !b.is_finite()) {
            return Err("a range's frames must be finite numbers".into());
        }
        if start < 0.0 {
            return Err(format!(
                "the start {start} is before the first frame: MMD frames count from 0"
            ));
        }
        if let Some(b) = stop
            && b < start
        {
            return Err(format!("the end {b} is before the start {start}"));
        }
        Ok(Range { start, stop })
    }
}

/// `WIDTHxHEIGHT`, each side 16 to 8192.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected WIDTHxHEIGHT, e.g. 1280x720, not `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    check_size((w, h))
}

/// Each side 16 to 8192.
pub fn check_size((w, h): (u32, u32)) -> Result<(u32, u32), String> {
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(format!("each side must be 16..=8192, not {w}x{h}"));
    }
    Ok((w, h))
}

/// `a:b` in MMD frames (30 per second), b included; either side may be left out; `a` alone
/// is one frame.
pub fn parse_range(s: &str) -> Result<Range, String> {
    let (a, b) = s.split_once(':').unwrap_or((s, s));
    let num = |t: &str| -> Result<Option<f32>, String> {
        let t = t.trim();
        if t.is_empty() {
            return Ok(None);
        }
        match t.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(format!(
                "`{t}` is not a frame number (use a:b, a:, :b or a)"
            )),
        }
    };
    let (a, b) = (num(a)?, num(b)?);
    Range::new(a.unwrap_or(0.0), b)
}

/// How messages name an option: as the command line spells it (`--settle 700`) or as a
/// keyword argument (`settle=700`), so each front end's user reads the name they typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OptionNames {
    #[default]
    CommandLine,
    Keywords,
}

impl OptionNames {
    /// `name` given `value`, as the user wrote it.
    pub fn show(self, name: &str, value: impl std::fmt::Display) -> String {
        match self {
            OptionNames::CommandLine => format!("--{name} {value}"),
            OptionNames::Keywords => format!("{name}={value}"),
        }
    }

    /// `name` alone.
    pub fn name(self, name: &str) -> String {
        match self {
            OptionNames::CommandLine => format!("--{name}"),
            OptionNames::Keywords => format!("{name}="),
        }
    }
}

/// The frame size when neither the options nor a project give one.
pub const DEFAULT_SIZE: (u32, u32) = (1280, 720);
