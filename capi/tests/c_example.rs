//! The C example (examples/loopback.c) compiled against the static library and the checked-in
//! header, as a C user builds it, and run: its own expectations (exit 0) and what it prints.

use std::path::PathBuf;
use std::process::Command;

/// The directory of the library cargo built for these tests (target/<profile>).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    // target/<profile>/deps/c_example-<hash>
    exe.parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>")
        .to_path_buf()
}

#[test]
fn the_c_example_builds_with_the_header_and_passes() {
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
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let exe = out_dir.join("loopback");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(root.join("include"))
        .arg(root.join("examples/loopback.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e} (a C compiler is needed for this test)"));
    assert!(status.success(), "the C example does not compile");
    let (json, junit) = (out_dir.join("loopback.json"), out_dir.join("loopback.xml"));
    let out = Command::new(&exe)
        .arg(&json)
        .arg(&junit)
        .output()
        .expect("run the example");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.ends_with("OK\n"), "{stdout}");
    assert_eq!(stdout.matches("class ok").count(), 6, "{stdout}");
    assert!(
        stdout.contains("block 40: DUT frame 2 (block 37 lane 4, 104 octets with FCS) differs from expected frame 2: first at octet 16 (DUT block 40 lane 4)"),
        "{stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON report")).unwrap();
    assert_eq!(doc["verdict"], "pass");
    assert_eq!(doc["summary"]["matched"], 6);
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(
        xml.contains("failures=\"0\"") && xml.contains("frame 5 (300 octets)"),
        "{xml}"
    );
}
