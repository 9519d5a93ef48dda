//! Which model the morph and bone panels show, and the bone marked on the picture.

#[derive(Debug, Default, Clone, Copy)]
pub struct Selection {
    /// The model the morph and bone lists show.
    pub model: usize,
    /// The bone highlighted in the view (of that model).
    pub bone: Option<usize>,
}

impl Selection {
    /// Select model `n` of `count`; a bone picked on another model is let go.
    pub fn select(&mut self, n: usize, count: usize) -> Result<(), String> {
        if n >= count {
            return Err(format!(
                "there is no model {n} (0 to {})",
                count.saturating_sub(1)
            ));
        }
        if n != self.model {
            self.bone = None;
        }
        self.model = n;
        Ok(())
    }

    /// Back to the first model, nothing picked (the demo made way for a dropped model).
    pub fn reset(&mut self) {
        *self = Selection::default();
    }
}
