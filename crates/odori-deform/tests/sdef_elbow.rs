//! The elbow test: an arm built in code, bent 90° and 150°, skinned BDEF2 and SDEF with the
//! same weights. Linear blending collapses the elbow (the "candy wrapper"); SDEF keeps its
//! cross-section and most of its volume. `cargo run -p odori-deform --example sdef_elbow`
//! draws the same arms into `out/sdef_elbow.png`.

mod common;

use common::arm::{self, Elbow};
use odori_deform::{Deformed, Mesh, deform};

/// (volume, elbow ring area) of the arm bent by `degrees`.
fn measure(elbow: Elbow, degrees: f32) -> (f64, f32) {
    let mesh = Mesh::from_pmx(&arm::arm(elbow));
    let mut out = Deformed::new(&mesh);
    deform(&mesh, &arm::bend(degrees), &[], &mut out);
    (
        arm::volume(&out.positions, mesh.indices()),
        arm::elbow_ring_area(&out.positions),
    )
}

#[test]
fn sdef_keeps_the_elbow_where_bdef2_collapses() {
    let (rest_volume, rest_area) = measure(Elbow::Bdef2, 0.0);
    let blend_volume = rest_volume * (2.0 * arm::BLEND / (2.0 * arm::ELBOW)) as f64;
    println!(
        "rest: volume {rest_volume:.3}, of which the blend region {blend_volume:.3}; \
         elbow ring area {rest_area:.4}"
    );
    let lost = |v: f64| 100.0 * (rest_volume - v) / blend_volume;
    for degrees in [90.0f32, 150.0] {
        let (bv, ba) = measure(Elbow::Bdef2, degrees);
        let (sv, sa) = measure(Elbow::Sdef { spread: 0.0 }, degrees);
        let (wv, wa) = measure(Elbow::Sdef { spread: arm::BLEND }, degrees);
        println!(
            "{degrees}°: volume lost (% of the blend region's volume) and elbow cross-section \
             (% of rest): BDEF2 {:.1}%, {:.1}% | SDEF (R0 = R1 = C) {:.1}%, {:.1}% | \
             SDEF (R0, R1 ±{}) {:.1}%, {:.1}%",
            lost(bv),
            100.0 * ba / rest_area,
            lost(sv),
            100.0 * sa / rest_area,
            arm::BLEND,
            lost(wv),
            100.0 * wa / rest_area,
        );
        // Linear blending at weight ½ squeezes the ring to an ellipse of area cos(θ/2).
        let expected = (degrees.to_radians() / 2.0).cos();
        assert!(
            (ba / rest_area - expected).abs() < 0.01,
            "BDEF2 ring {}",
            ba / rest_area
        );
        // SDEF turns the ring rigidly: its area stays, whatever R0 and R1.
        assert!(
            (sa / rest_area - 1.0).abs() < 1e-3,
            "SDEF ring {}",
            sa / rest_area
        );
        assert!(
            (wa / rest_area - 1.0).abs() < 1e-3,
            "SDEF ring {}",
            wa / rest_area
        );
        // With C at the joint every vertex turns about the same point, a volume-preserving
        // map: the arm keeps its volume (the inner side folds into itself, signed volume
        // counts that once).
        assert!(lost(sv).abs() < 1.0, "SDEF lost {}%", lost(sv));
        assert!(lost(bv) > 15.0, "BDEF2 lost only {}%", lost(bv));
    }
}
