//! What the window tells the user (files loaded, screenshots saved, warnings about a file,
//! errors): each message printed to standard error once, when it is new, and the latest
//! shown in the panel in its level's colour.

use std::io::IsTerminal;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Something done as asked (a file loaded, a screenshot saved).
    Info,
    /// Done, but not all of it (a texture missing, motion tracks matching nothing).
    Warning,
    /// Not done (a file that did not load, an unknown name).
    Error,
}

impl Level {
    /// The colour the panel writes it in.
    pub fn color(self) -> egui::Color32 {
        match self {
            Level::Info => egui::Color32::from_rgb(170, 200, 170),
            Level::Warning => egui::Color32::from_rgb(230, 190, 60),
            Level::Error => egui::Color32::from_rgb(230, 80, 60),
        }
    }

    /// The prefix and the terminal colour of its line on standard error.
    fn prefix(self) -> (&'static str, &'static str) {
        match self {
            Level::Info => ("", ""),
            Level::Warning => ("warning: ", "\x1b[33m"),
            Level::Error => ("error: ", "\x1b[31m"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub level: Level,
    pub text: String,
}

/// The messages so far, and how many of them were printed.
#[derive(Debug, Default)]
pub struct Messages {
    list: Vec<Message>,
    printed: usize,
    /// Every warning ever added, cleared or not: a rebuild finds the same ones again.
    warned: std::collections::HashSet<String>,
}

impl Messages {
    /// Add a message. A warning already held is not added again: the scene is rebuilt on
    /// every drop and finds the same unmatched tracks each time.
    pub fn push(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if level == Level::Warning && !self.warned.insert(text.clone()) {
            return;
        }
        self.list.push(Message { level, text });
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.push(Level::Info, text)
    }

    pub fn warn(&mut self, text: impl Into<String>) {
        self.push(Level::Warning, text)
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.push(Level::Error, text)
    }

    /// Each of `texts` as a warning.
    pub fn warn_all<S: Into<String>>(&mut self, texts: impl IntoIterator<Item = S>) {
        for t in texts {
            self.warn(t);
        }
    }

    /// The messages not printed yet, marked printed.
    pub fn take_new(&mut self) -> &[Message] {
        let new = &self.list[self.printed..];
        self.printed = self.list.len();
        new
    }

    /// Print the new messages to standard error, one line each (coloured by level when it
    /// is a terminal).
    pub fn print_new(&mut self) {
        let colour = std::io::stderr().is_terminal();
        for m in self.take_new() {
            let (prefix, escape) = m.level.prefix();
            if colour && !escape.is_empty() {
                eprintln!("{escape}{prefix}\x1b[0m{}", m.text);
            } else {
                eprintln!("{prefix}{}", m.text);
            }
        }
    }

    /// The latest `n`, newest first.
    pub fn latest(&self, n: usize) -> impl Iterator<Item = &Message> {
        self.list.iter().rev().take(n)
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Forget the messages (all were printed); a warning given again stays unsaid.
    pub fn clear(&mut self) {
        self.list.clear();
        self.printed = 0;
    }
}

#[cfg(test)]
mod tests {
    //! Held to the rule in the module doc: every message reaches standard error once, in
    //! the order given, whatever came before it (the window used to reprint its whole
    //! history on every drop).
    use super::*;

    #[test]
    fn each_message_is_new_once() {
        let mut m = Messages::default();
        m.info("loaded a.pmx");
        m.error("b.txt: not a file odori plays");
        let first: Vec<String> = m.take_new().iter().map(|x| x.text.clone()).collect();
        assert_eq!(first, ["loaded a.pmx", "b.txt: not a file odori plays"]);
        m.warn("3 motion tracks match nothing in a");
        let second = m.take_new().to_vec();
        assert_eq!(second.len(), 1);
        assert_eq!(second[0].level, Level::Warning);
        assert!(m.take_new().is_empty());
        // The same warning found again by a rebuild is not new, even after the start-up
        // messages were printed and cleared (a drop then printed the load's warning again).
        m.warn("3 motion tracks match nothing in a");
        assert!(m.take_new().is_empty());
        let mut started = Messages::default();
        started.warn("3 motion tracks match nothing in a");
        started.print_new();
        started.clear();
        started.warn("3 motion tracks match nothing in a");
        assert!(started.take_new().is_empty());
        let levels: Vec<Level> = m.latest(3).map(|x| x.level).collect();
        assert_eq!(levels, [Level::Warning, Level::Error, Level::Info]);
    }
}
