//! Read throughput on real files from `../shared` (skipped, with a notice, when absent).
//!
//! One function per format; add a new one to the `criterion_group!` list at the bottom.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// The bytes of a shared file, or `None` after `odori_testkit` printed a skip notice.
fn shared_bytes(rel: &str) -> Option<Vec<u8>> {
    let path = odori_testkit::shared(rel)?;
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Parse Gene_light.pmx (2.8 MB: 28,646 vertices, 184 morphs) from memory.
fn pmx_read(c: &mut Criterion) {
    let Some(bytes) = shared_bytes("assets/gene/Gene_light.pmx") else {
        return;
    };
    c.bench_function("pmx_read_gene_light", |b| {
        b.iter(|| odori_format::pmx::parse(black_box(&bytes)).expect("Gene_light.pmx parses"))
    });
}

criterion_group!(benches, pmx_read);
criterion_main!(benches);
