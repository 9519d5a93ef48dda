//! `--script FILE`: drive the window from a file, one command a line, for tests and demos.
//! Every command becomes the [`Action`] a key, a click or a drop would (or waits), so a script
//! runs the player's real code paths.
//!
//! ```text
//! # comments and blank lines are skipped
//! drop model.pmx          a file, as if dropped on the window
//! drop dance.vmd at 400 300   dropped at window pixel (400, 300): to the model there
//! model 1                 show model 1 (0-based) in the morph and bone lists
//! morph あ 0.8            hold morph あ of that model at 0.8 (`off`: the motion's again)
//! morph reset             every morph back to the motion's weights
//! bone 頭                 highlight a bone (`bone none`: no bone)
//! doubleclick 400 300     refocus the orbit camera on the model at that pixel
//! pause | play            stop or start the clock
//! seek 120                jump to MMD frame 120
//! key Space               press a key (Space, Left, Right, Home, End, Tab, Escape, a letter)
//! wait 10                 let 10 frames be drawn; `wait 1.5s`: 1.5 s of real time
//! screenshot out.png      save the current frame
//! status                  print `frame=… playing=… models=… camera=…` on standard output
//! quit
//! ```

use crate::actions::{Action, Key};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Do(Action),
    /// Let this many frames be drawn.
    WaitFrames(u32),
    /// Let this many seconds pass.
    WaitSeconds(f64),
    Status,
}

/// A script that could not be read; names the file and the line.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read the script {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// Read and check a whole script before the window opens.
pub fn read(path: &Path) -> Result<Vec<Command>, ScriptError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

/// Parse script text; relative paths in it are taken from the folder the script is in.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Command>, ScriptError> {
    let base = path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |message: String| ScriptError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        let need = |what: &str| {
            if rest.is_empty() {
                Err(err(format!("`{word}` needs {what}")))
            } else {
                Ok(rest)
            }
        };
        let file = |rest: &str| base.join(rest);
        let number = |s: &str, what: &str| -> Result<f32, ScriptError> {
            s.parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(format!("`{line}`: {s:?} is not {what}")))
        };
        let pixel = |s: &str| -> Result<(f32, f32), ScriptError> {
            match s.split_whitespace().collect::<Vec<_>>()[..] {
                [x, y] => Ok((number(x, "a pixel")?, number(y, "a pixel")?)),
                _ => Err(err(format!("`{line}`: needs a pixel `X Y`"))),
            }
        };
        let command = match word {
            "drop" => {
                let rest = need("a file")?;
                match rest.rsplit_once(" at ") {
                    Some((f, at)) => Command::Do(Action::Drop(file(f.trim()), Some(pixel(at)?))),
                    None => Command::Do(Action::Drop(file(rest), None)),
                }
            }
            "model" => {
                let n = need("a model number")?;
                Command::Do(Action::SelectModel(n.parse().map_err(|_| {
                    err(format!("`model {n}`: not a model number (0, 1, …)"))
                })?))
            }
            "morph" => {
                let rest = need("a morph name and a weight")?;
                if rest == "reset" {
                    Command::Do(Action::ResetMorphs)
                } else {
                    let Some((name, w)) = rest.rsplit_once(char::is_whitespace) else {
                        return Err(err(format!("`morph {rest}` needs a weight (0–1 or off)")));
                    };
                    let weight = match w {
                        "off" => None,
                        w => Some(number(w, "a weight")?),
                    };
                    Command::Do(Action::Morph(name.trim().to_string(), weight))
                }
            }
            "stage" => Command::Do(Action::MakeStage),
            "lose-gpu" => Command::Do(Action::LoseGpu),
            "bone" => {
                let name = need("a bone name")?;
                Command::Do(Action::PickBone((name != "none").then(|| name.to_string())))
            }
            "doubleclick" => {
                let (x, y) = pixel(need("a pixel `X Y`")?)?;
                Command::Do(Action::Refocus(x, y))
            }
            "pause" => Command::Do(Action::SetPlaying(false)),
            "play" => Command::Do(Action::SetPlaying(true)),
            "seek" => {
                let f: f64 = need("a frame")?
                    .parse()
                    .map_err(|_| err(format!("`seek {rest}`: not a frame number")))?;
                if !f.is_finite() || f < 0.0 {
                    return Err(err(format!("`seek {rest}`: frames start at 0")));
                }
                Command::Do(Action::Seek(f))
            }
            "key" => {
                let name = need("a key name")?;
                let key = Key::from_name(name)
                    .filter(|k| k.action(false).is_some())
                    .ok_or_else(|| {
                        err(format!("`key {name}`: no key of that name does anything"))
                    })?;
                Command::Do(key.action(false).expect("filtered above"))
            }
            "wait" => {
                let arg = need("a frame count or seconds (`1.5s`)")?;
                match arg.strip_suffix('s') {
                    Some(secs) => match secs.parse::<f64>() {
                        Ok(s) if s.is_finite() && s >= 0.0 => Command::WaitSeconds(s),
                        _ => return Err(err(format!("`wait {arg}`: not a number of seconds"))),
                    },
                    None => Command::WaitFrames(
                        arg.parse()
                            .map_err(|_| err(format!("`wait {arg}`: not a frame count")))?,
                    ),
                }
            }
            "screenshot" => Command::Do(Action::Screenshot(Some(file(need("a PNG path")?)))),
            "status" => Command::Status,
            "quit" => Command::Do(Action::Quit),
            other => {
                return Err(err(format!(
                    "unknown command `{other}` (drop, pause, play, seek, key, wait, screenshot, \
                     status, model, morph, bone, doubleclick, quit)"
                )));
            }
        };
        out.push(command);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_become_the_actions_keys_give() {
        let text = "# a test\n\ndrop m.pmx\npause\nseek 12.5\nkey Space\nwait 3\nwait 0.5s\n\
                    screenshot out.png\nstatus\ndrop a b.vmd at 10 20.5\nmodel 1\nmorph あ 0.5\n\
                    morph まばたき off\nmorph reset\nbone 頭\nbone none\ndoubleclick 3 4\nquit\n";
        let got = parse(text, Path::new("/s/run.txt")).unwrap();
        assert_eq!(
            got,
            vec![
                Command::Do(Action::Drop(PathBuf::from("/s/m.pmx"), None)),
                Command::Do(Action::SetPlaying(false)),
                Command::Do(Action::Seek(12.5)),
                Command::Do(Action::TogglePause),
                Command::WaitFrames(3),
                Command::WaitSeconds(0.5),
                Command::Do(Action::Screenshot(Some(PathBuf::from("/s/out.png")))),
                Command::Status,
                Command::Do(Action::Drop(
                    PathBuf::from("/s/a b.vmd"),
                    Some((10.0, 20.5))
                )),
                Command::Do(Action::SelectModel(1)),
                Command::Do(Action::Morph("あ".into(), Some(0.5))),
                Command::Do(Action::Morph("まばたき".into(), None)),
                Command::Do(Action::ResetMorphs),
                Command::Do(Action::PickBone(Some("頭".into()))),
                Command::Do(Action::PickBone(None)),
                Command::Do(Action::Refocus(3.0, 4.0)),
                Command::Do(Action::Quit),
            ]
        );
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        for (text, want) in [
            ("seek x", "run.txt:1: `seek x`: not a frame number"),
            (
                "pause\nkey Zed",
                "run.txt:2: `key Zed`: no key of that name",
            ),
            ("wait", "run.txt:1: `wait` needs"),
            ("jump 3", "run.txt:1: unknown command `jump`"),
            ("seek -1", "run.txt:1: `seek -1`: frames start at 0"),
            ("morph あ", "run.txt:1: `morph あ` needs a weight"),
            (
                "morph あ x",
                "run.txt:1: `morph あ x`: \"x\" is not a weight",
            ),
            (
                "drop a.vmd at 3",
                "run.txt:1: `drop a.vmd at 3`: needs a pixel",
            ),
            ("doubleclick 1 nan", "is not a pixel"),
        ] {
            let e = parse(text, Path::new("run.txt")).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
