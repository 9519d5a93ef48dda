//! A private X server for tests that need a screen (the player's window, Chromium's WebGPU
//! canvas), which CI does not have.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Environment variable that makes a missing Xvfb a test failure (CI sets it).
pub const REQUIRE_DISPLAY_VAR: &str = "ODORI_REQUIRE_DISPLAY";

/// A private X server, stopped when dropped.
pub struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    /// The display to set as `DISPLAY`, e.g. `:99`.
    pub fn display(&self) -> &str {
        &self.display
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start Xvfb on a free display (it picks one and writes it to `-displayfd`), or `None` after
/// printing SKIPPED (`what` says which test); `ODORI_REQUIRE_DISPLAY=1` turns the skip into a
/// failure.
pub fn start(what: &str) -> Option<Xvfb> {
    let required = std::env::var(REQUIRE_DISPLAY_VAR).is_ok_and(|v| v == "1");
    let skip = |why: String| {
        if required {
            panic!("{why}, and {REQUIRE_DISPLAY_VAR}=1 forbids skipping");
        }
        eprintln!("SKIPPED: {why} ({what})");
        None
    };
    let mut child = match Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1280x1024x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return skip(format!("Xvfb cannot start ({e}); apt-get install xvfb")),
    };
    let mut line = String::new();
    let read = BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line);
    match (read, line.trim().parse::<u32>()) {
        (Ok(_), Ok(n)) => Some(Xvfb {
            child,
            display: format!(":{n}"),
        }),
        _ => {
            let _ = child.kill();
            skip(format!("Xvfb did not say its display ({line:?})"))
        }
    }
}
