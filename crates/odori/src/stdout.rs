//! Standard output for the commands that print to it (`info`, `pose`, `bench`): buffered,
//! and a closed pipe (`odori info x.pmx | head -1`) is told apart from a real write error
//! (`> /dev/full`), which is reported as one.

use std::fmt;
use std::io::{self, BufWriter, StdoutLock, Write};

/// The reader of standard output went away (a closed pipe).
#[derive(Debug)]
struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for Closed {}

/// Buffered standard output whose errors say what failed. Call `flush` at the end: a write
/// error found only when the buffer is dropped would be lost.
pub struct Stdout(BufWriter<StdoutLock<'static>>);

pub fn stdout() -> Stdout {
    Stdout(BufWriter::new(io::stdout().lock()))
}

fn describe(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, Closed)
    } else {
        io::Error::new(e.kind(), format!("writing to standard output: {e}"))
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(describe)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(describe)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(describe)
    }
}

/// True when `e` is (caused by) standard output being closed: exit quietly, as `cat` does.
pub fn is_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(|inner| inner.is::<Closed>())
    })
}
