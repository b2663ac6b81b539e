//! The C example (examples/loopback.c) compiled against the static library and the checked-in
//! header, as a C user builds it, and run: its own expectations (exit 0) and what it prints.

use std::path::PathBuf;
use std::process::Command;

mod common;

#[test]
fn the_c_example_builds_with_the_header_and_passes() {
    let exe = common::build_c("examples/loopback.c", "loopback");
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
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
