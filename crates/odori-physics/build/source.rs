//! Where build.rs finds Bullet 3.07's source: the `src/` folder of Bullet as the crates.io
//! package `rubullet-sys` 0.1.0-alpha-2 carries it (`bullet3/libbullet3/src/`). Never copied
//! into this repository: it is named by `ODORI_BULLET_SRC`, found already unpacked in Cargo's
//! registry, or downloaded from static.crates.io, checked against the registry's checksum and
//! unpacked (only the folders rigid bodies need) into `OUT_DIR`.

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The crates.io package that carries Bullet 3.07's whole source.
const PACKAGE: &str = "rubullet-sys-0.1.0-alpha-2";
const URL: &str = "https://static.crates.io/crates/rubullet-sys/rubullet-sys-0.1.0-alpha-2.crate";
/// The checksum crates.io's index records for that package (`cksum`).
const SHA256: &str = "be6ff885988ec47a33721bcd5ab07abed29eeeb7c1f850777558d6b6be8d2e28";
/// Bullet's `src/` inside the package.
const SRC_IN_PACKAGE: &str = "bullet3/libbullet3/src";
/// What is unpacked from the package: the three libraries rigid bodies need and the two
/// umbrella headers.
const WANTED: [&str; 5] = [
    "LinearMath/",
    "BulletCollision/",
    "BulletDynamics/",
    "btBulletDynamicsCommon.h",
    "btBulletCollisionCommon.h",
];

/// Bullet's `src/` folder (holding `btBulletDynamicsCommon.h`), or a message that says what
/// went wrong and what to do.
pub fn bullet_src(out_dir: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("ODORI_BULLET_SRC") {
        let dir = PathBuf::from(dir);
        return if is_bullet_src(&dir) {
            Ok(dir)
        } else {
            Err(format!(
                "ODORI_BULLET_SRC={} is not Bullet's src folder (no btBulletDynamicsCommon.h \
                 there); point it at `{SRC_IN_PACKAGE}` of an unpacked {PACKAGE}.crate",
                dir.display()
            ))
        };
    }
    if let Some(dir) = in_cargo_registry() {
        return Ok(dir);
    }
    let dir = out_dir.join("bullet-3.07").join("src");
    if dir.join(".complete").is_file() {
        return Ok(dir);
    }
    download_and_unpack(&dir).map_err(|e| {
        format!(
            "could not get Bullet's source: {e}. Without network access, download {URL} \
             (sha256 {SHA256}), unpack it and set ODORI_BULLET_SRC=/path/to/{PACKAGE}/\
             {SRC_IN_PACKAGE}; or set ODORI_NO_BULLET=1 to build odori without physics"
        )
    })?;
    Ok(dir)
}

fn is_bullet_src(dir: &Path) -> bool {
    dir.join("btBulletDynamicsCommon.h").is_file()
}

/// `$CARGO_HOME/registry/src/*/rubullet-sys-0.1.0-alpha-2/…`, when Cargo already unpacked the
/// package (for instance for another project that depends on it).
fn in_cargo_registry() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(home.join("registry").join("src"))
        .ok()?
        .flatten()
        .map(|e| e.path().join(PACKAGE).join(SRC_IN_PACKAGE))
        .filter(|p| is_bullet_src(p))
        .collect();
    found.sort();
    found.into_iter().next()
}

fn download_and_unpack(dest: &Path) -> Result<(), String> {
    let mut body = Vec::new();
    // The system's certificate store (and its proxy settings through the environment), as
    // Cargo itself uses: a machine behind a TLS-inspecting proxy trusts that proxy there.
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder().tls_config(tls).build().into();
    agent
        .get(URL)
        .call()
        .map_err(|e| format!("downloading {URL} failed ({e})"))?
        .into_body()
        .into_reader()
        .take(64 << 20)
        .read_to_end(&mut body)
        .map_err(|e| format!("reading {URL} failed ({e})"))?;
    let digest: String = Sha256::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if digest != SHA256 {
        return Err(format!(
            "{URL} has sha256 {digest}, not the {SHA256} that crates.io's index records"
        ));
    }
    // A half-unpacked folder from an interrupted build is removed first.
    let _ = std::fs::remove_dir_all(dest);
    let prefix = format!("{PACKAGE}/{SRC_IN_PACKAGE}/");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&body[..]));
    let entries = archive
        .entries()
        .map_err(|e| format!("{URL} is not a readable .crate ({e})"))?;
    let mut unpacked = 0usize;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("{URL}: bad archive entry ({e})"))?;
        let path = entry
            .path()
            .map_err(|e| format!("{URL}: bad path in archive ({e})"))?
            .to_string_lossy()
            .into_owned();
        let Some(rel) = path.strip_prefix(&prefix) else {
            continue;
        };
        if !WANTED.iter().any(|w| rel.starts_with(w)) || !entry.header().entry_type().is_file() {
            continue;
        }
        // Nothing may land outside `dest`.
        if rel.split('/').any(|c| c == ".." || c.is_empty()) {
            return Err(format!("{URL}: unexpected path {path}"));
        }
        let target = dest.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .map_err(|e| format!("{URL}: reading {path} failed ({e})"))?;
        std::fs::write(&target, data).map_err(|e| format!("{}: {e}", target.display()))?;
        unpacked += 1;
    }
    if !is_bullet_src(dest) {
        return Err(format!(
            "{URL} holds no {SRC_IN_PACKAGE}/btBulletDynamicsCommon.h ({unpacked} files taken)"
        ));
    }
    std::fs::write(dest.join(".complete"), SHA256)
        .map_err(|e| format!("{}: {e}", dest.display()))?;
    Ok(())
}
