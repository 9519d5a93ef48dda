//! `Player::evaluate` allocates nothing per frame once its frame buffers are sized (pose,
//! deformation, camera, light; physics off: Bullet's own allocations are not ours to count).
//! The counter is process-wide, so this file holds one test.

use odori_playback::{Frame, Player, PlayerOptions, Scene};
use odori_testkit::alloc::{Counting, allocations};
use std::sync::Arc;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn player_evaluate_allocates_nothing_per_frame() {
    let scene = Arc::new(Scene::demo());
    let options = PlayerOptions {
        physics: false,
        deform: true,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene, options);
    let mut frame = Frame::default();
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    pool.install(|| {
        let run = |player: &mut Player, frame: &mut Frame| {
            let before = allocations();
            for k in 0..480 {
                player.evaluate_at(k as f64 * 0.5, frame);
            }
            allocations() - before
        };
        let warm_up = run(&mut player, &mut frame);
        println!("{warm_up} allocations over the first pass (buffers sized, rayon warming up)");
        let n = run(&mut player, &mut frame);
        assert_eq!(n, 0, "{n} allocations over 480 frames");
    });
}
