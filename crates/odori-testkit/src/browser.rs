//! What the tests that drive Chromium need (node, Chromium, playwright-core from the browser
//! harness's `npm ci`), checked one by one: a missing piece is a SKIPPED notice, or a failure
//! under `ODORI_REQUIRE_BROWSER=1` (CI).

/// `Some(())` when `ok`, else `None` after a SKIPPED line naming `what`; a failure instead
/// under `ODORI_REQUIRE_BROWSER=1`.
pub fn need(ok: bool, what: &str) -> Option<()> {
    if ok {
        return Some(());
    }
    if std::env::var("ODORI_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        panic!("{what} is missing, and ODORI_REQUIRE_BROWSER=1 forbids skipping");
    }
    eprintln!("SKIPPED: {what} is missing");
    None
}
