//! Builds odori's C++ shim over the system Bullet library (Debian: `libbullet-dev`), found
//! through pkg-config. When Bullet is missing the crate still builds, with the
//! `odori_no_bullet` cfg: `PhysicsWorld::new` then returns an error that says what to
//! install, and the rest of odori runs without physics.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(odori_no_bullet)");
    println!("cargo:rerun-if-changed=shim/odori_bullet.cpp");
    println!("cargo:rerun-if-changed=shim/odori_bullet.h");
    println!("cargo:rerun-if-env-changed=ODORI_NO_BULLET");

    // Lets CI and developers check the no-physics build on a machine that has Bullet.
    if std::env::var_os("ODORI_NO_BULLET").is_some_and(|v| v == "1") {
        println!("cargo:rustc-cfg=odori_no_bullet");
        return;
    }

    let bullet = match pkg_config::Config::new()
        .atleast_version("2.82")
        .cargo_metadata(false)
        .probe("bullet")
    {
        Ok(lib) => lib,
        Err(e) => {
            println!(
                "cargo:warning=odori-physics: Bullet not found ({}); building without physics. \
                 Install it with `apt-get install libbullet-dev pkg-config`.",
                e.to_string().lines().next().unwrap_or("pkg-config failed")
            );
            println!("cargo:rustc-cfg=odori_no_bullet");
            return;
        }
    };

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("shim/odori_bullet.cpp")
        .flag_if_supported("-std=c++14")
        .flag_if_supported("-fno-exceptions")
        // Bullet's headers trip a few warnings that are not ours to fix.
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-unused-variable");
    for dir in &bullet.include_paths {
        build.include(dir);
    }
    for (name, value) in &bullet.defines {
        build.define(name, value.as_deref());
    }
    // A machine with Bullet's headers but no C++ compiler still gets a working odori.
    if let Err(e) = build.try_compile("odori_bullet_shim") {
        println!(
            "cargo:warning=odori-physics: could not compile the Bullet shim ({e}); building \
             without physics. Install a C++ compiler (apt-get install g++)."
        );
        println!("cargo:rustc-cfg=odori_no_bullet");
        return;
    }

    // Only the three libraries rigid bodies need (the pc file also lists BulletSoftBody).
    for dir in &bullet.link_paths {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    for lib in ["BulletDynamics", "BulletCollision", "LinearMath"] {
        println!("cargo:rustc-link-lib={lib}");
    }
}
