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
