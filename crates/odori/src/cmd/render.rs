//! `odori render`: a scene to MP4, PNG or a folder of PNGs. Arguments and messages only; the
//! playback library builds the scene and runs the pipeline (`odori_playback::offline`).

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use odori_playback::choice::Choice;
use odori_playback::output::RenderOutput;
use odori_playback::render_job::{self as job, Note, RenderJob};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

pub use odori_playback::choice::{ExportFps, Msaa, VideoFps};
pub use odori_playback::render_job::{BackendChoice, EncoderChoice, Range, SkinningChoice};

/// A clap value parser for an option whose names are the playback library's ([`Choice`]),
/// each with its help line.
pub fn choice<T: Choice>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = (T::VALUES.iter()).map(|&(name, _, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(values).try_map(|name| T::parse(&name))
}

/// `--size WIDTHxHEIGHT` (clap's value parser: a bad size stops argument parsing).
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    job::parse_size(s)
}

/// `--range a:b` in MMD frames (30 per second), b included; either side may be left out; `a`
/// alone is one frame (clap's value parser: checked before anything loads).
pub fn parse_range(s: &str) -> Result<Range, String> {
    job::parse_range(s)
}

/// Set by Ctrl-C: the pipeline stops and finishes what it has.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Ctrl-C while rendering: the first asks the pipeline to stop and keep the frames done so
/// far; a second one quits at once (removing the unfinished MP4).
fn catch_ctrl_c(part: Option<PathBuf>) {
    let result = ctrlc::set_handler(move || {
        if CANCEL.swap(true, Ordering::SeqCst) {
            if let Some(p) = &part {
                let _ = std::fs::remove_file(p);
            }
            eprintln!("\ninterrupted twice: stopped without finishing");
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: finishing the frames done so far (Ctrl-C again to quit)");
    });
    if let Err(e) = result {
        eprintln!("warning: Ctrl-C will not keep the frames done so far: {e}");
    }
}

/// Run `job` (the command line's options, `names` [`job::OptionNames::CommandLine`]) with a
/// progress bar, keeping what is done on Ctrl-C.
pub fn run(job: RenderJob) -> Result<ExitCode> {
    let output_path = job.output.clone();
    let verbose = job.verbose;
    let prepared = job.prepare(&mut |note| match note {
        Note::Warning(w) => eprintln!("warning: {w}"),
        Note::Note(n) => eprintln!("note: {n}"),
        Note::Info(i) => eprintln!("{i}"),
    })?;
    if prepared.unmatched() > 0 && !verbose {
        eprintln!("note: --verbose lists every motion track that matches nothing");
    }
    // Ctrl-C from here on stops the pipeline and keeps what it has (before, it simply quits:
    // nothing is written yet).
    catch_ctrl_c(match prepared.output() {
        RenderOutput::Mp4(path) => Some(odori_playback::sink::part_path(path)),
        _ => None,
    });
    let range_count = prepared.frames();

    let bar = ProgressBar::new(range_count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} frames  {per_sec}  elapsed {elapsed}  left {eta}",
        )
        .expect("a valid template"),
    );
    let tick = || bar.inc(1);
    let report = prepared.run(&tick, &CANCEL)?;
    bar.finish_and_clear();
    if let Some((frame, why)) = &report.fell_back {
        eprintln!(
            "warning: the GPU device was lost ({why}): frames from {frame} of the run on were drawn on odori's CPU rasteriser"
        );
    }
    if report.cancelled() {
        if report.frames == 0 {
            eprintln!("interrupted before the first frame: nothing written");
        } else {
            eprintln!(
                "interrupted: wrote {} of {} frames to {}",
                report.frames,
                report.requested,
                output_path.display()
            );
        }
        return Ok(ExitCode::from(130));
    }
    eprintln!(
        "wrote {} ({} frames in {:.1} s, {:.1} fps)",
        output_path.display(),
        report.frames,
        report.seconds,
        report.frames as f64 / report.seconds.max(1e-9)
    );
    // Stages overlap, so these add up to more than the wall time when the pipeline works.
    eprintln!(
        "busy per frame: evaluate+deform {:.1} ms, draw+upload {:.1} ms, wait for GPU+readback \
         {:.1} ms, encode {:.1} ms",
        report.evaluate_ms, report.draw_ms, report.readback_ms, report.encode_ms
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges() {
        assert_eq!(parse_size("1280x720").unwrap(), (1280, 720));
        assert!(parse_size("12x720").is_err());
        assert!(parse_size("1280").is_err());
        let r = |s| parse_range(s).map(|r| (r.start, r.stop));
        assert_eq!(r("10:20").unwrap(), (10.0, Some(20.0)));
        assert_eq!(r(":20").unwrap(), (0.0, Some(20.0)));
        assert_eq!(r("5:").unwrap(), (5.0, None));
        assert_eq!(r("7").unwrap(), (7.0, Some(7.0)));
        assert!(r("20:10").is_err());
        assert!(r("-5:3").unwrap_err().contains("count from 0"));
        assert!(r("x:3").is_err());
    }
}
