//! Options with named values (`--encoder builtin`, `encoder="builtin"`): one table per option,
//! read by the command line's argument parser and by the Python module, so the two accept the
//! same names with the same meanings.

/// An option's values by name.
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// Each value: its name, the value, and what it does (for `--help`).
    const VALUES: &'static [(&'static str, Self, &'static str)];

    /// The value's name.
    fn name(self) -> &'static str {
        (Self::VALUES.iter())
            .find(|v| v.1 == self)
            .map_or("", |v| v.0)
    }

    /// The value called `name` (exactly; names are lower case), or a message listing the
    /// names.
    fn parse(name: &str) -> Result<Self, String> {
        (Self::VALUES.iter())
            .find(|v| v.0 == name)
            .map(|v| v.1)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::VALUES.iter().map(|v| v.0).collect();
                format!("{name:?}: give one of {}", names.join(", "))
            })
    }
}

/// Whether `value` is one of `T`'s numeric choices (a rate or a sample count given as a
/// number, as Python passes it), or a message listing the names.
pub fn numeric<T: Choice + Into<u32>>(value: u32) -> Result<T, String> {
    (T::VALUES.iter())
        .find(|v| v.1.into() == value)
        .map(|v| v.1)
        .ok_or_else(|| {
            let names: Vec<&str> = T::VALUES.iter().map(|v| v.0).collect();
            format!("give one of {}", names.join(", "))
        })
}

/// A video's frame rate (`--fps`, `fps=`). Motions run at MikuMikuDance's 30 frames a second
/// ([`crate::FPS`]); other rates sample the motion between its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoFps(pub u32);

impl Choice for VideoFps {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        ("24", VideoFps(24), "film"),
        ("25", VideoFps(25), "PAL video"),
        (
            "30",
            VideoFps(30),
            "MikuMikuDance's own rate: a video frame per motion frame",
        ),
        ("50", VideoFps(50), "PAL video, doubled"),
        ("60", VideoFps(60), "two video frames per motion frame"),
    ];
}

impl From<VideoFps> for u32 {
    fn from(f: VideoFps) -> u32 {
        f.0
    }
}

/// glTF export's sampling rate (`odori export --fps`): keys per second of animation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportFps(pub u32);

impl Choice for ExportFps {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "30",
            ExportFps(30),
            "MikuMikuDance's own rate: a key per motion frame",
        ),
        ("60", ExportFps(60), "two keys per motion frame"),
    ];
}

impl From<ExportFps> for u32 {
    fn from(f: ExportFps) -> u32 {
        f.0
    }
}

/// Multisampling (`--msaa`, `msaa=`): samples per pixel, the adapter's best up to this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Msaa(pub u32);

impl Choice for Msaa {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        ("1", Msaa(1), "off: fastest, outlines break into dashes"),
        ("2", Msaa(2), "two samples"),
        ("4", Msaa(4), "four samples (the default)"),
        ("8", Msaa(8), "eight samples"),
    ];
}

impl From<Msaa> for u32 {
    fn from(m: Msaa) -> u32 {
        m.0
    }
}
