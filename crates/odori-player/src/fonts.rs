//! Japanese glyphs for the panels: egui's own fonts have none, and MMD's morph and bone names
//! are Japanese. A system font with them is loaded at start (`ODORI_FONT`, else the first of
//! a few usual paths) as a fallback after egui's fonts; none found, names show as boxes and
//! the window says once how to get one. No font is shipped with odori.

use std::path::PathBuf;

/// Where Linux, macOS and Windows keep fonts with Japanese glyphs.
const CANDIDATES: &[&str] = &[
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/System/Library/Fonts/ヒラギノ角ゴシック W3.ttc",
    "/System/Library/Fonts/Hiragino Sans GB.ttc",
    "C:\\Windows\\Fonts\\YuGothR.ttc",
    "C:\\Windows\\Fonts\\msgothic.ttc",
];

/// Add a Japanese font to `ctx` when one is found; the message to show when none is.
pub fn add_japanese(ctx: &egui::Context) -> Option<String> {
    let paths = std::env::var_os("ODORI_FONT")
        .map(PathBuf::from)
        .into_iter()
        .chain(CANDIDATES.iter().map(PathBuf::from));
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let mut fonts = egui::FontDefinitions::default();
        let name = "japanese".to_string();
        fonts.font_data.insert(
            name.clone(),
            std::sync::Arc::new(egui::FontData::from_owned(bytes)),
        );
        for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
            fonts.families.entry(family).or_default().push(name.clone());
        }
        ctx.set_fonts(fonts);
        eprintln!("odori play: Japanese names drawn with {}", path.display());
        return None;
    }
    Some(
        "no font with Japanese glyphs found: morph and bone names show as boxes (install \
         fonts-noto-cjk, or set ODORI_FONT to a .ttf/.ttc)"
            .into(),
    )
}
