//! Motion reading speed: parsing wavefile_v2.vmd (14,160 bone keys, 1.6 MB) from memory.
//! Target: median at most 2 ms. Skipped with a notice when `../shared` is absent.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn vmd_read_wavefile(c: &mut Criterion) {
    let Some(path) = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd") else {
        eprintln!("SKIPPED vmd_read_wavefile: wavefile_v2.vmd not found");
        return;
    };
    let bytes = std::fs::read(path).expect("readable wavefile_v2.vmd");
    c.bench_function("vmd_read_wavefile", |b| {
        b.iter(|| odori_format::vmd::parse(black_box(&bytes)).expect("wavefile_v2.vmd parses"))
    });
}

criterion_group!(benches, vmd_read_wavefile);
criterion_main!(benches);
