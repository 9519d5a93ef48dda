//! How the web surfaces move a player's clock to a frame as playing does: the page's `App`
//! and the npm package's `Instance` alike (plain Rust, so it builds natively too).

use odori_playback::{Frame, Player};

/// The longest step forward [`play_to`] plays through rather than seeks (3 s).
pub const PLAY_GAP: f64 = 90.0;
/// The step it plays through in, in MMD frames (under the physics world's 5-frame gap).
pub const STEP: f64 = 4.0;

/// Move `player`'s clock to `frame` as playing does (a page calls this with the soundtrack's
/// time or the wall clock's): a step forward of up to [`PLAY_GAP`] frames is played through,
/// every [`STEP`] frames evaluated on the way into `scratch`, so that physics steps on at a
/// low frame rate instead of restarting (a jump of more than 5 frames counts as a seek for
/// the physics world); anything else is a seek.
pub fn play_to(player: &mut Player, scratch: &mut Frame, frame: f64) {
    let mut at = player.position();
    if frame >= at && frame - at <= PLAY_GAP {
        while frame - at > STEP {
            at += STEP;
            player.seek(at);
            player.evaluate(scratch);
        }
    }
    player.seek(frame);
}
