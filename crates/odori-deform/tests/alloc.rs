//! `deform` allocates nothing per frame, on the calling thread or on rayon's workers. The
//! counter is process-wide, so this file holds one test and nothing runs beside it.

mod common;

use odori_deform::{Deformed, Mesh, deform};
use odori_testkit::alloc::{Counting, allocations};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn deform_allocates_nothing_per_frame() {
    let mesh = Mesh::from_pmx(&common::every_weight_type());
    let poses: Vec<_> = (0..8)
        .map(|s| common::random_pose(common::BONES, s))
        .collect();
    let weights: Vec<[f32; 6]> = (0..8)
        .map(|k| {
            let w = k as f32 / 8.0;
            [w, 1.0 - w, 0.5, w, 0.0, 1.0 - w]
        })
        .collect();
    let mut out = Deformed::new(&mesh);
    let frames = 500;
    let run = |out: &mut Deformed| {
        let before = allocations();
        for f in 0..frames {
            deform(&mesh, &poses[f % 8], &weights[f % 8], out);
        }
        allocations() - before
    };
    // Run from inside a pool, as a render loop driving rayon can. The first frames may
    // allocate inside rayon's dependencies as each worker steals for the first time
    // (crossbeam-epoch registers the thread); after that, nothing.
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    pool.install(|| {
        let warm_up = run(&mut out);
        println!("{warm_up} allocations over the first {frames} frames (rayon warming up)");
        let n = run(&mut out);
        assert_eq!(n, 0, "{n} allocations over {frames} frames inside the pool");
    });
    // From a thread outside the pool, every call hands rayon one job through its injector
    // queue, which allocates a block every few dozen calls: amortised, not per frame.
    run(&mut out); // the global pool's first use starts its threads
    let n = run(&mut out);
    println!("{n} allocations over {frames} frames called from outside the pool");
    assert!(
        n <= frames / 16,
        "{n} allocations over {frames} frames from outside the pool"
    );
}
