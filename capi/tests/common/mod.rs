//! Builds a C program of the tests against the static library and the checked-in header, as a
//! C user builds it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory of the library cargo built for these tests (target/<profile>).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    // target/<profile>/deps/<test>-<hash>
    exe.parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>")
        .to_path_buf()
}

/// Compiles `source` (relative to capi/) with `-Wall -Wextra -Werror -pedantic` against
/// `libbaser.a` (built here, in the tests' target directory and profile) into `name` in the
/// tests' temporary directory; returns its path.
pub fn build_c(source: &str, name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // `cargo test` builds the library as an rlib only: the static library is built here, in
    // the same target directory and profile (quick: the crates are compiled already).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(&cargo);
    build
        .args(["build", "--quiet", "--manifest-path"])
        .arg(root.join("Cargo.toml"));
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    let target = lib_dir();
    if let Some(t) = target.parent() {
        build.env("CARGO_TARGET_DIR", t);
    }
    assert!(
        build.status().expect("cargo build").success(),
        "cargo build of capi/ failed"
    );
    let lib = target.join("libbaser.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(root.join("include"))
        .arg(root.join(source))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e} (a C compiler is needed for this test)"));
    assert!(status.success(), "{source} does not compile");
    exe
}
