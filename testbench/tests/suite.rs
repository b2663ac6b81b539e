//! `baser gen --suite DIR`: the conformance catalogue written for a SystemVerilog bench
//! (docs/conformance.md, "SystemVerilog"): files, index, the decode of a case's line, errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn baser(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baser"))
        .args(args)
        .output()
        .expect("run baser")
}

fn dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("baser-suite-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

#[test]
fn suite_writes_each_cases_files_and_an_index() {
    let d = dir("two");
    let s = d.to_str().unwrap();
    let o = baser(&["gen", "--suite", s, "--cases", "rx-lock-loss,tx-dic"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("index.json")).unwrap()).unwrap();
    let cases = index["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0]["name"], "rx-lock-loss");
    assert_eq!(cases[0]["clause"], "49.2.9, Fig. 49-14");
    assert_eq!(cases[0]["stream"], "rx-lock-loss.bits");
    assert_eq!(cases[1]["kind"], "tx");
    assert_eq!(cases[1]["stream"], "tx-dic.pcap");
    let exp: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(d.join("rx-lock-loss.expected.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        exp["demands"]["block_lock"],
        serde_json::json!([true, false, true])
    );
    assert_eq!(exp["frames"].as_array().unwrap().len(), 2);
    // the line decodes as any .bits stream, to the frames the expected outcome lists
    let bits = d.join("rx-lock-loss.bits");
    let json = d.join("decode.json");
    baser(&[
        "decode",
        bits.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let classes: Vec<&str> = exp["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        classes,
        ["error_character", "ok"],
        "/T/ then lock loss: an /E/ (Fig. 49-17)"
    );
    assert_eq!(
        doc["frames"]["by_class"],
        serde_json::json!({"error_character": 1, "ok": 1})
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn suite_writes_a_test_pattern_case_with_its_run() {
    let d = dir("prbs");
    let s = d.to_str().unwrap();
    let o = baser(&[
        "gen",
        "--suite",
        s,
        "--cases",
        "rx-prbs31,tx-prbs31,rx-frames",
        "--prbs31-inverted",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("3 cases at 10g (1 receive, 0 transmit, 2 test-pattern)"),
        "{out}"
    );
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("index.json")).unwrap()).unwrap();
    let cases = index["cases"].as_array().unwrap();
    assert_eq!(cases[1]["test_pattern"], true);
    assert_eq!(cases[2].get("test_pattern"), None);
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("rx-prbs31.pattern.json")).unwrap())
            .unwrap();
    assert_eq!(run["inverted"], true);
    assert_eq!(run["expected_errors"], 36);
    assert_eq!(run["errors"].as_array().unwrap().len(), 12);
    let o = baser(&["gen", "--prbs31-inverted", "--seed", "1", "--out", "x"]);
    assert_eq!(o.status.code(), Some(2), "--prbs31-inverted needs --suite");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn suite_errors_name_the_case_and_the_folder() {
    let o = baser(&[
        "gen",
        "--suite",
        dir("bad").to_str().unwrap(),
        "--cases",
        "rx-nope",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("no case `rx-nope`") && err.contains("rx-hi-ber-16"),
        "{err}"
    );
    let o = baser(&["gen", "--suite", "/proc/baser-suite"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("/proc/baser-suite: cannot make the suite folder"),
        "{err}"
    );
    let o = baser(&["gen", "--suite", dir("fc").to_str().unwrap(), "--fec", "fc"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("without a FEC"));
    let o = baser(&["gen", "--cases", "rx-frames", "--seed", "1", "--out", "x"]);
    assert_eq!(o.status.code(), Some(2), "--cases needs --suite");
    let o = baser(&["gen", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("--suite <DIR>") && help.contains("CASE.expected.json"),
        "{help}"
    );
}

/// `gen --suite` at 25G with the DUT's short window: the rate in the index, the 25G BER cases
/// in place of the 10G ones, the model's 25G monitor (97) on the DUT's window.
#[test]
fn suite_at_25g_takes_the_dut_window_and_the_25g_threshold() {
    let d = dir("25g");
    let s = d.to_str().unwrap();
    let args = [
        "gen",
        "--suite",
        s,
        "--rate",
        "25g",
        "--ber-window-blocks",
        "1000",
    ];
    let o = baser(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("index.json")).unwrap()).unwrap();
    assert_eq!(
        (index["rate"].as_str(), index["ber_window_blocks"].as_u64()),
        (Some("25g"), Some(1000))
    );
    let names: Vec<&str> = index["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 25);
    assert!(names.contains(&"rx-hi-ber-97") && !names.contains(&"rx-hi-ber-16"));
    let levels = |case: &str| {
        let exp: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(d.join(format!("{case}.expected.json"))).unwrap(),
        )
        .unwrap();
        let trace = exp["status"]["hi_ber"].as_array().unwrap().clone();
        trace
            .iter()
            .map(|p| p[1].as_bool().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(levels("rx-hi-ber-97"), [false, true, false]);
    assert_eq!(levels("rx-hi-ber-96"), [false]);
    std::fs::remove_dir_all(&d).unwrap();
    for (extra, says) in [
        (
            &["--ber-window-blocks", "500"][..],
            "500 blocks is too short",
        ),
        (
            &["--ber-window-blocks", "0"],
            "0 blocks: expected 1 or more",
        ),
        (
            &["--cases", "rx-hi-ber-16"],
            "at 25g the catalogue has rx-hi-ber-96, rx-hi-ber-97",
        ),
    ] {
        let o = baser(&[&["gen", "--suite", s, "--rate", "25g"][..], extra].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
    }
}
