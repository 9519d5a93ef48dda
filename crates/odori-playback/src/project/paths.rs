//! Finding the files a project names, as users move projects between machines.
//!
//! A PMM stores Windows paths in Shift-JIS: relative to MikuMikuDance's folder
//! (`UserFile\Model\初音ミク.pmd`) or absolute (`C:\tool\MikuMikuDance_v926x64\UserFile\...`).
//! Neither usually exists as written on the machine that renders. Each path is tried as a
//! relative path and then by its tails (`UserFile\Model\x.pmd`, `Model\x.pmd`, `x.pmd`) under
//! each root in turn: the project's folder, its parent and grandparent (MMD keeps projects in
//! `UserFile\` or one folder below it, so MMD's own folder is at most two levels up), then each
//! search folder the user gave, in order. Components match case-insensitively when no exact
//! match exists (Windows names are case-blind). A candidate is taken only when it is a file
//! whose real path (links followed) lies inside the root it was found under: a path in a
//! project never reads outside the folders the user gave.

use odori_format::sjis::decode_sjis;
use std::fmt;
use std::path::{Path, PathBuf};

/// How many levels above the project's folder are searched.
pub const ANCESTORS: usize = 2;

/// Where a stored path led.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    Found(PathBuf),
    /// Not found: the path as stored (decoded) and the folders looked in.
    Missing {
        stored: String,
        looked_in: Vec<PathBuf>,
    },
}

impl Resolved {
    pub fn path(&self) -> Option<&Path> {
        match self {
            Resolved::Found(p) => Some(p),
            Resolved::Missing { .. } => None,
        }
    }
}

impl fmt::Display for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resolved::Found(p) => write!(f, "{}", p.display()),
            Resolved::Missing { stored, looked_in } => {
                write!(f, "{stored} not found (looked under")?;
                for (i, d) in looked_in.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{}", d.display())?;
                }
                write!(f, ")")
            }
        }
    }
}

/// The folders a project's paths may lead into, in search order.
#[derive(Debug, Clone)]
pub struct Resolver {
    roots: Vec<PathBuf>,
}

impl Resolver {
    /// Roots for a project file: its folder and [`ANCESTORS`] levels above, then `search`.
    pub fn new(project_file: &Path, search: &[PathBuf]) -> Resolver {
        let mut roots = Vec::new();
        let dir = project_file.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let mut at = Some(dir.as_path());
        for _ in 0..=ANCESTORS {
            let Some(d) = at else { break };
            roots.push(d.to_path_buf());
            at = d.parent();
        }
        for s in search {
            roots.push(s.canonicalize().unwrap_or_else(|_| s.clone()));
        }
        Resolver { roots }
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Resolve a stored Shift-JIS path (the bytes before its NUL).
    pub fn resolve(&self, stored: &[u8]) -> Resolved {
        let text = decode_sjis(stored).into_owned();
        let parts: Vec<&str> = text
            .split(['\\', '/'])
            .filter(|p| !p.is_empty() && *p != "." && !p.ends_with(':'))
            .collect();
        // ".." could climb out of a root: a path holding one is looked up by its tail after it.
        let start = parts.iter().rposition(|p| *p == "..").map_or(0, |i| i + 1);
        let parts = &parts[start..];
        if !parts.is_empty() {
            for root in &self.roots {
                for k in 0..parts.len() {
                    if let Some(found) = lookup(root, &parts[k..]) {
                        return Resolved::Found(found);
                    }
                }
            }
        }
        Resolved::Missing {
            stored: text,
            looked_in: self.roots.clone(),
        }
    }
}

/// `parts` under `root`, each component matched exactly or else case-insensitively; a file
/// whose real path stays inside `root`.
fn lookup(root: &Path, parts: &[&str]) -> Option<PathBuf> {
    let mut at = root.to_path_buf();
    for part in parts {
        let exact = at.join(part);
        at = if exact.exists() {
            exact
        } else {
            let lower = part.to_lowercase();
            std::fs::read_dir(&at)
                .ok()?
                .flatten()
                .find(|e| e.file_name().to_string_lossy().to_lowercase() == lower)?
                .path()
        };
    }
    let real = at.canonicalize().ok()?;
    (real.is_file() && real.starts_with(root)).then_some(real)
}
