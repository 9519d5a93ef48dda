//! What the command line's process tests share: a render long enough to interrupt, and a
//! signal sent to it from the test itself (no `kill` program: minimal systems lack it).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};

/// A long render of the demo to `mp4` (far past the demo's end, the last pose held: thousands
/// of small frames, many seconds even on a fast GPU), returned once it has said it is
/// rendering, with its standard error and what it said so far. The caller must keep reading
/// the standard error (or drop it) so a full pipe never stalls the child.
pub fn start_long_render(mp4: &Path) -> (Child, BufReader<ChildStderr>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args([
            "render", "--size", "160x96", "--fps", "60", "--range", "0:3000",
        ])
        .args(["--msaa", "1", "-o"])
        .arg(mp4)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("odori render:") {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "ended early: {seen}"
        );
        seen.push_str(&line);
    }
    (child, stderr, seen)
}

/// Send `signal` to `child`, as a terminal or the system would.
pub fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on our own child's id, which it keeps until we wait for it.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0, "{}", std::io::Error::last_os_error());
}
