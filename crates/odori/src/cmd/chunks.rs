//! `odori render --chunks N`: one video drawn in N chunks on local threads from poses baked
//! once, the segments joined into the MP4 with the soundtrack muxed once (the playback
//! library's [`odori_playback::chunked`]). The frames are those of a render in one run.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use odori_playback::chunked;
use odori_playback::render_job::{Note, RenderJob};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// Run `job` in `chunks` chunks with a progress bar over every chunk's frames.
pub fn run(job: RenderJob, chunks: usize) -> Result<ExitCode> {
    // The frame count is known once the poses are baked: a counter, not a bar.
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} frames drawn  {per_sec}  elapsed {elapsed}")
            .expect("a valid template"),
    );
    let mut notes = |note: Note| match note {
        Note::Warning(w) => bar.suspend(|| eprintln!("warning: {w}")),
        Note::Note(n) => bar.suspend(|| eprintln!("note: {n}")),
        Note::Info(i) => bar.suspend(|| eprintln!("{i}")),
    };
    let cancel = AtomicBool::new(false);
    let started = std::time::Instant::now();
    let report = chunked::render_chunked(&job, chunks, &mut notes, &|| bar.inc(1), &cancel)?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "wrote {} ({} frames in {} chunks, {seconds:.1} s, {:.1} fps): bake {:.1} s, draw {:.1} s, \
         join {:.1} s",
        job.output.display(),
        report.frames,
        report.chunks,
        report.frames as f64 / seconds.max(1e-9),
        report.bake_s,
        report.draw_s,
        report.join_s
    );
    Ok(ExitCode::SUCCESS)
}
