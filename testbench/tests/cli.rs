//! The real `baser` binary on the golden vectors and on malformed inputs: exit codes,
//! messages, reports, and tshark reading our pcap output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn baser(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baser"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A scratch folder, removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!("baser-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }

    fn file(&self, name: &str, content: &[u8]) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, content).unwrap();
        p.to_string_lossy().into_owned()
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

#[test]
fn demo_check_finds_exactly_the_three_deliberate_faults() {
    for dut in ["vectors/demo/dut.b66", "vectors/demo/dut.bits"] {
        let o = baser(&[
            "check",
            "--frames",
            "vectors/demo/frames.pcap",
            "--dut",
            dut,
        ]);
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL ")).collect();
        assert_eq!(fails.len(), 4, "{out}");
        assert!(
            fails[0].starts_with("FAIL frames: frame 2 (1514 octets): corrupted"),
            "{out}"
        );
        assert!(fails[0].ends_with("class fcs_error"), "{out}");
        assert!(
            out.contains("first difference at octet 310: expected 0xb9, got 0xa9"),
            "{out}"
        );
        assert_eq!(
            fails[1],
            "FAIL frames: frame 6 (300 octets): missing: no received frame matches it"
        );
        assert_eq!(
            fails[2],
            "FAIL pcs: no invalid sync headers: 1 invalid sync headers while locked"
        );
        assert!(
            fails[3].starts_with("FAIL pcs: no errored blocks (RX_E): 1 blocks entered RX_E"),
            "{out}"
        );
        assert!(
            out.contains("RX_C --E--> RX_E: invalid sync header 0"),
            "{out}"
        );
    }
}

#[test]
fn clean_streams_pass_in_every_format() {
    for dut in [
        "expected.b66",
        "expected-unscrambled.b66",
        "expected.bits",
        "expected.xgmii",
    ] {
        for case in ["demo", "dic", "terminate-lanes", "short-frames", "jumbo"] {
            let o = baser(&[
                "check",
                "--frames",
                &format!("vectors/{case}/frames.pcap"),
                "--dut",
                &format!("vectors/{case}/{dut}"),
            ]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(0), "{case}/{dut}\n{out}{err}");
            assert!(out.ends_with("PASS\n"), "{out}");
        }
    }
}

#[test]
fn runts_are_reported_as_runts() {
    let o = baser(&[
        "check",
        "--frames",
        "vectors/runts/frames.pcap",
        "--dut",
        "vectors/runts/expected.b66",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAIL frames: frame 0 (20 octets): received with MAC class runt"),
        "{out}"
    );
    assert!(
        out.contains("FAIL frames: frame 1 (59 octets): received with MAC class runt"),
        "{out}"
    );
    assert!(!out.contains("frame 2 (60"), "{out}");
}

#[test]
fn json_and_junit_reports_carry_the_verdicts() {
    let s = Scratch::new("reports");
    let (json, junit) = (s.path("r.json"), s.path("r.xml"));
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        "vectors/demo/dut.b66",
        "--json",
        &json,
        "--junit",
        &junit,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "--quiet prints nothing");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["verdict"], "fail");
    assert_eq!(doc["summary"]["expected"], 10);
    assert_eq!(doc["summary"]["matched"], 8);
    assert_eq!(doc["summary"]["corrupted"], 1);
    assert_eq!(doc["summary"]["missing"], 1);
    assert_eq!(doc["frames"][2]["status"], "corrupted");
    assert_eq!(doc["frames"][2]["first_difference"]["offset"], 310);
    assert_eq!(doc["frames"][6]["status"], "missing");
    assert_eq!(doc["pcs"]["invalid_headers"], 1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    // 10 frames + "no unexpected frames" + 6 PCS checks.
    assert!(xml.contains(r#"<testsuite name="baser check --frames" tests="17" skipped="0" errors="0" failures="4">"#), "{xml}");
    assert!(
        xml.contains(r#"<testcase name="frame 6 (300 octets)" classname="baser.frames">"#),
        "{xml}"
    );
}

/// The unscrambled control-blocks stream with one payload bit of block 5 changed (line 1 is
/// the header comment; block 5 is line 7), written into `s`.
fn flipped_control_blocks(s: &Scratch) -> String {
    let orig =
        std::fs::read_to_string("../vectors/control-blocks/expected-unscrambled.b66").unwrap();
    let mut lines: Vec<String> = orig.lines().map(String::from).collect();
    let l = &lines[6];
    let p = u64::from_str_radix(&l[2..], 16).unwrap() ^ (1 << 40);
    lines[6] = format!("{} {p:016x}", &l[..1]);
    s.file("dut.b66", (lines.join("\n") + "\n").as_bytes())
}

#[test]
fn pcs_check_is_bit_exact_and_names_the_first_divergent_block() {
    for case in ["control-blocks", "link-fault", "invalid-xgmii", "p802.3df"] {
        for dut in ["expected.b66", "expected-unscrambled.b66"] {
            let o = baser(&[
                "check",
                "--xgmii",
                &format!("vectors/{case}/input.xgmii"),
                "--dut",
                &format!("vectors/{case}/{dut}"),
            ]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(0), "{case}/{dut}\n{out}{err}");
        }
    }
    let s = Scratch::new("pcs");
    let dut = flipped_control_blocks(&s);
    let o = baser(&[
        "check",
        "--xgmii",
        "vectors/control-blocks/input.xgmii",
        "--dut",
        &dut,
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("1 of 44 blocks differ; first at block 5 (DUT line 7), lane 5 (data)"),
        "{out}"
    );
    assert!(
        out.contains("DUT    1 000000f002000055  (type 0x55: /Q/ 00 00 02 /Fsig/ 00 00 00)"),
        "{out}"
    );
}

#[test]
fn decode_finds_lock_from_an_odd_bit_offset_and_summarises() {
    let s = Scratch::new("decode");
    let json = s.path("d.json");
    let o = baser(&["decode", "vectors/demo/dut.bits", "--json", &json]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("block lock at bit offset 5616 after 85 blocks and 6 slips"),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["frames"]["by_class"]["fcs_error"], 1);
    assert_eq!(doc["frames"]["by_class"]["ok"], 8);
    assert_eq!(doc["pcs"]["lock_acquired"]["slips"], 6);
    let o = baser(&["decode", "vectors/dic/expected.bits"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
}

#[test]
fn tshark_reads_our_pcap_output_as_the_same_frames() {
    if Command::new("tshark").arg("-v").output().is_err() {
        eprintln!("SKIP: tshark is not installed (.ci/run installs it)");
        return;
    }
    let s = Scratch::new("tshark");
    let pcap = s.path("dic.pcap");
    let o = baser(&["decode", "vectors/dic/expected.bits", "--pcap", &pcap, "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let fields = |f: &str| {
        let o = Command::new("tshark")
            .args([
                "-r",
                f,
                "-T",
                "fields",
                "-e",
                "frame.len",
                "-e",
                "eth.dst",
                "-e",
                "eth.type",
                "-e",
                "data",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let ours = fields(&pcap);
    let input = fields("../vectors/dic/frames.pcap");
    assert_eq!(ours.lines().count(), 72);
    assert_eq!(ours, input);
}

#[test]
fn encode_round_trips_through_decode() {
    let s = Scratch::new("encode");
    let (b66, xg, pcap) = (s.path("o.b66"), s.path("o.xgmii"), s.path("o.pcap"));
    let o = baser(&[
        "encode",
        "vectors/jumbo/frames.pcap",
        "--b66",
        &b66,
        "--xgmii",
        &xg,
        "--seed",
        "0x123456789abcdef",
        "--ifg",
        "16",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let head = std::fs::read_to_string(&b66).unwrap();
    assert!(
        head.starts_with("# scrambled\n# scrambler_state=0x123456789abcdef\n"),
        "{}",
        &head[..80]
    );
    let o = baser(&[
        "decode",
        &b66,
        "--pcap",
        &pcap,
        "--max-frame-length",
        "9018",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    let o = baser(&[
        "check",
        "--frames",
        "vectors/jumbo/frames.pcap",
        "--dut",
        &b66,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
}

#[test]
fn lane4_starts_put_every_start_in_lane_4_and_the_frames_still_check() {
    let s = Scratch::new("lane4");
    // (starts in lane 0, starts in lane 4) of an .xgmii file: `CTRL DATA` lines, DATA printed
    // lane 7 first.
    let starts = |path: &str| {
        let t = std::fs::read_to_string(path).unwrap();
        let (mut l0, mut l4) = (0, 0);
        for line in t.lines().filter(|l| !l.starts_with('#')) {
            let (c, d) = line.split_once(' ').unwrap();
            let (c, d) = (
                u8::from_str_radix(c, 16).unwrap(),
                u64::from_str_radix(d, 16).unwrap(),
            );
            l0 += usize::from(c & 1 != 0 && d & 0xff == 0xfb);
            l4 += usize::from(c & 0x10 != 0 && (d >> 32) & 0xff == 0xfb);
        }
        (l0, l4)
    };
    let input = "vectors/terminate-lanes/frames.pcap";
    for (flag, want_lane0) in [(None, true), (Some("--lane4-starts"), false)] {
        let (xg, b66) = (s.path("o.xgmii"), s.path("o.b66"));
        let mut args = vec!["encode", input, "--xgmii", &xg, "--b66", &b66, "-q"];
        args.extend(flag);
        let o = baser(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
        let (l0, l4) = starts(&xg);
        assert_eq!(l0 > 0, want_lane0, "{flag:?}: {l0} starts in lane 0");
        assert!(l4 > 0);
        let o = baser(&["check", "--frames", input, "--dut", &b66, "-q"]);
        assert_eq!(o.status.code(), Some(0), "{flag:?}: {}", text(&o).0);
    }
}

/// Runs `baser` and expects exit 2 with `message` in stderr.
fn refused(args: &[&str], message: &str) {
    let o = baser(args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}\n{out}{err}");
    assert!(
        err.contains(message),
        "{args:?}: expected `{message}` in:\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn malformed_inputs_are_refused_with_file_and_line() {
    let s = Scratch::new("bad");
    let good = std::fs::read("../vectors/demo/frames.pcap").unwrap();
    let truncated = s.file("truncated.pcap", &good[..good.len() - 7]);
    refused(&["encode", &truncated], "truncated.pcap: byte ");
    refused(
        &["encode", &truncated],
        "the file ends inside a record (truncated capture)",
    );
    let magic = s.file("magic.pcap", b"\x00\x01\x02\x03rest of a file");
    refused(
        &["encode", &magic],
        "magic.pcap: byte 0: not a pcap or pcapng file: magic 00010203",
    );
    let mut snap = good.clone();
    snap[16..20].copy_from_slice(&63u32.to_le_bytes());
    let snap = s.file("snap.pcap", &snap);
    refused(
        &["encode", &snap],
        "record 0: 64 octets captured, larger than the file's snaplen 63",
    );
    let empty_pcap = s.file("empty.pcap", b"");
    refused(
        &["encode", &empty_pcap],
        "empty.pcap: empty file: expected a pcap or pcapng capture",
    );
    let odd = s.file("odd.xgmii", b"ff 0707070707070707\nff 070707070707070\n");
    refused(
        &["decode", &odd],
        "odd.xgmii:2: data `070707070707070` has 15 hex digits, expected 16",
    );
    let digits15 = s.file("d15.b66", b"# scrambled\n1 000000000000001\n");
    refused(
        &["decode", &digits15],
        "d15.b66:2: payload `000000000000001` has 15 hex digits, expected 16",
    );
    let h7 = s.file("h7.b66", b"1 000000000000001e\n7 000000000000001e\n");
    refused(
        &["decode", &h7],
        "h7.b66:2: sync header digit `7` is not 0..3",
    );
    let empty = s.file("empty.b66", b"");
    refused(&["decode", &empty], "empty.b66: no blocks in the file");
    let empty_x = s.file("empty.xgmii", b"# only a comment\n");
    refused(
        &["decode", &empty_x],
        "empty.xgmii: no transfers in the file",
    );
    let zero = s.file("zero.bits", b"");
    refused(
        &["decode", &zero],
        "zero.bits: 0-byte .bits file: no bits to decode",
    );
    refused(
        &["decode", "no/such/file.b66"],
        "no/such/file.b66: No such file or directory",
    );
    refused(
        &["check", "--dut", "vectors/demo/dut.b66"],
        "check needs --frames EXPECTED.pcap or --xgmii INPUT.xgmii",
    );
    refused(
        &["decode", "vectors/demo/frames.pcap"],
        "decode reads .bits, .b66 or .xgmii",
    );
    refused(&["decode", "README.md"], "README.md: unknown file kind");
    refused(
        &[
            "encode",
            "vectors/demo/frames.pcap",
            "--seed",
            "0x7ffffffffffffff",
        ],
        "more than 58 bits",
    );
}

#[test]
fn inject_puts_predictable_faults_on_the_line() {
    let s = Scratch::new("inject");
    let (bits, b66) = (s.path("f.bits"), s.path("f.b66"));
    // Block 300 of the dic stream is inside frame 15 (its /S/ is at block 298).
    let o = baser(&[
        "encode",
        "vectors/dic/frames.pcap",
        "--bits",
        &bits,
        "--b66",
        &b66,
        "--inject",
        "header:300",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    assert!(text(&o).0.contains("--inject: 1 fault(s) on the line"));
    for dut in [&bits, &b66] {
        let o = baser(&["check", "--frames", "vectors/dic/frames.pcap", "--dut", dut]);
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains("71 matched, 0 reordered, 1 corrupted"),
            "{out}"
        );
        assert!(
            out.contains("FAIL frames: frame 15 (75 octets): corrupted"),
            "{out}"
        );
        assert!(
            out.contains("RX_D --E--> RX_E: invalid sync header 0"),
            "{out}"
        );
    }
    // A one-bit slip: lock is lost and regained at the new boundary.
    let o = baser(&[
        "decode",
        "vectors/dic/expected.b66",
        "--inject",
        "slip:30000:+1",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("lock losses 1"), "{out}");
    assert!(out.contains("lock lost at block"), "{out}");
    refused(
        &[
            "encode",
            "vectors/dic/frames.pcap",
            "--b66",
            &b66,
            "--inject",
            "slip:10:+1",
        ],
        "a .b66 file cannot hold",
    );
    refused(
        &["encode", "vectors/dic/frames.pcap", "--inject", "zap:1"],
        "expected flip:BIT",
    );
}

#[test]
fn decode_of_the_expected_b66_gives_the_expected_xgmii_line_for_line() {
    // The decoder's look-ahead is absorbed and the last block flushed: line i of the decoded
    // trace is block i of the stream, equal to the transfer the encoder was given, except
    // where that transfer was T_TYPE E (sent as EBLOCK_T, received as eight /E/): one in
    // control-blocks, the /LI/ among idles of line 4.
    let s = Scratch::new("lines");
    for (case, e_lines) in [
        ("dic", vec![]),
        ("demo", vec![]),
        ("jumbo", vec![]),
        ("control-blocks", vec![2]),
        ("link-fault", vec![]),
    ] {
        let out = s.path(&format!("{case}.xgmii"));
        let o = baser(&[
            "decode",
            &format!("vectors/{case}/expected.b66"),
            "--xgmii",
            &out,
            "-q",
            "--max-frame-length",
            "9018",
        ]);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{case}: {}",
            text(&o).1
        );
        let lines = |p: &str| -> Vec<String> {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(String::from)
                .collect()
        };
        let mut want = lines(&format!("../vectors/{case}/expected.xgmii"));
        for i in e_lines {
            want[i] = "ff fefefefefefefefe".into();
        }
        assert_eq!(lines(&out), want, "{case}");
    }
}

/// The verdict comes from the counts, whatever the report limit keeps in detail
/// (`--max-report 0` once made a failing PCS check say PASS).
#[test]
fn every_report_limit_keeps_a_failing_verdict() {
    let s = Scratch::new("limits");
    let dut = flipped_control_blocks(&s);
    let json = s.path("r.json");
    for limit in [Some("0"), Some("1"), None] {
        let mut args = vec![
            "check",
            "--xgmii",
            "vectors/control-blocks/input.xgmii",
            "--dut",
            &dut,
            "--json",
            &json,
        ];
        if let Some(n) = limit {
            args.extend(["--max-report", n]);
        }
        let o = baser(&args);
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(1), "--max-report {limit:?}\n{out}");
        assert!(out.contains("1 of 44 blocks differ"), "{out}");
        assert!(out.lines().last() == Some("FAIL"), "{out}");
        let doc = std::fs::read_to_string(&json).unwrap();
        assert!(doc.contains("\"verdict\": \"fail\""), "{doc}");
    }
    // The frame check and decode on the demo DUT (three faults) at every limit.
    for limit in [Some("0"), Some("1"), None] {
        let mut check = vec![
            "check",
            "--frames",
            "vectors/demo/frames.pcap",
            "--dut",
            "vectors/demo/dut.b66",
        ];
        let mut decode = vec!["decode", "vectors/demo/dut.b66"];
        if let Some(n) = limit {
            check.extend(["--max-report", n]);
            decode.extend(["--max-report", n]);
        }
        for args in [check, decode] {
            let o = baser(&args);
            let (out, _) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}\n{out}");
        }
    }
}

/// `-v` lists every frame (encode, decode) and every passing case (check).
#[test]
fn verbose_lists_frames_and_passing_cases() {
    let o = baser(&["encode", "vectors/demo/frames.pcap", "-v"]);
    let (out, _) = text(&o);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("  record ")).count(),
        10,
        "{out}"
    );
    assert!(
        out.contains("  record 0: 64 octets, /S/ at block 128 lane 0"),
        "{out}"
    );
    let o = baser(&["decode", "vectors/demo/dut.b66", "-v"]);
    let (out, _) = text(&o);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("  frame ")).count(),
        9,
        "{out}"
    );
    assert!(
        out.contains("  frame 2: block 149 lane 4, 1518 octets, fcs_error, gap 12"),
        "{out}"
    );
    let args = [
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        "vectors/demo/dut.b66",
    ];
    let quiet = text(&baser(&args)).0;
    assert!(!quiet.contains("PASS frames:"), "{quiet}");
    let mut v = args.to_vec();
    v.push("-v");
    let (out, _) = text(&baser(&v));
    // 8 intact frames, and the PCS checks that passed.
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("PASS frames: frame "))
            .count(),
        8,
        "{out}"
    );
    assert!(out.contains("PASS pcs: block lock acquired"), "{out}");
}

/// Dumps as real RTL writes them (issue: a correct RTL passes out of the box): a scrambler
/// not reset to all ones and no state line, reset fill before the first block, a serial dump
/// from reset whose first frame comes before a receiver could lock, at an odd bit offset, and
/// a PCS dump with pipeline latency.
#[test]
fn realistic_dumps_of_a_correct_design_pass() {
    let s = Scratch::new("dumps");
    let b66 = s.path("tx.b66");
    let bits = s.path("tx.bits");
    let xg = s.path("tx.xgmii");
    // The model as the DUT: scrambler seeded with an arbitrary state, only 4 idle blocks
    // before the first frame (a TX dump from reset).
    let o = baser(&[
        "encode",
        "vectors/demo/frames.pcap",
        "--seed",
        "2b1d5a0f3c96e7",
        "--idle-blocks",
        "4",
        "--b66",
        &b66,
        "--bits",
        &bits,
        "--xgmii",
        &xg,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // 1. .b66 with only `# scrambled` and three blocks of reset fill in front.
    let body: Vec<String> = std::fs::read_to_string(&b66)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(String::from)
        .collect();
    let mut dump = String::from("# scrambled\n");
    for _ in 0..3 {
        dump.push_str("0 0000000000000000\n");
    }
    for l in &body {
        dump.push_str(l);
        dump.push('\n');
    }
    let dut = s.file("dut.b66", dump.as_bytes());
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &dut,
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("3 leading all-zero blocks skipped as reset fill"),
        "{out}"
    );
    assert!(
        out.contains("block 3 used to train the descrambler"),
        "{out}"
    );
    assert!(out.contains("10 matched"), "{out}");
    // --strict-start counts the fill as invalid headers.
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &dut,
        "--strict-start",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    // 2. The serial dump from reset, 37 bits in: offline, every frame is judged, and the
    // place where a receiver locks is named; as a receiver sees it, early frames are lost.
    let shifted = skip_bits(&std::fs::read(&bits).unwrap(), 37);
    let dut_bits = s.file("dut.bits", &shifted);
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &dut_bits,
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("offline: blocks from bit 29 of the file"),
        "{out}"
    );
    assert!(out.contains("a receiver locks at block"), "{out}");
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &dut_bits,
        "--receiver-view",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("missing: no received frame matches it"),
        "{out}"
    );
    // 3. The PCS dump with 4 blocks of latency: 4 blocks of the DUT's reset state first, the
    // last 4 blocks not yet out when the dump ended; found, and not a failure.
    let mut dump = String::from("# scrambled\n");
    for _ in 0..4 {
        dump.push_str("1 000000000000001e\n");
    }
    for l in &body[..body.len() - 4] {
        dump.push_str(l);
        dump.push('\n');
    }
    let late = s.file("late.b66", dump.as_bytes());
    let o = baser(&["check", "--xgmii", &xg, "--dut", &late]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("DUT matches at an offset of 4 blocks"),
        "{out}"
    );
    assert!(out.contains("DUT missing 4 blocks"), "{out}");
    // One more block missing is a failure.
    let mut short: Vec<&str> = dump.lines().collect();
    short.pop();
    let shorter = s.file("shorter.b66", (short.join("\n") + "\n").as_bytes());
    let o = baser(&["check", "--xgmii", &xg, "--dut", &shorter]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    // 4. A dump without a known extension is read by its content, with a note.
    let txt = s.file("dump.txt", dump.as_bytes());
    let o = baser(&["decode", &txt]);
    let (_, err) = text(&o);
    assert!(err.contains("read as .b66 by its content"), "{err}");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
}

/// The stream without its first `n` bits.
fn skip_bits(raw: &[u8], n: usize) -> Vec<u8> {
    let total = raw.len() * 8 - n;
    (0..total)
        .step_by(8)
        .map(|i| {
            (0..8).fold(0u8, |b, j| {
                let at = n + i + j;
                let bit = raw.get(at / 8).map_or(0, |x| (x >> (at % 8)) & 1);
                b | bit << j
            })
        })
        .collect()
}

/// Errored blocks count only while the link is up in every profile: the verilog-ethernet
/// profile decodes before lock (as that RTL does), which no receiver counts.
#[test]
fn a_profile_that_decodes_before_lock_counts_no_errored_blocks_there() {
    let s = Scratch::new("profile");
    let bits = s.path("ve.bits");
    let o = baser(&[
        "encode",
        "vectors/demo/frames.pcap",
        "--profile",
        "verilog-ethernet",
        "--bits",
        &bits,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // 33 bits in: before lock the blocks are cut at the wrong place and decode as garbage.
    let odd = s.file("odd.bits", &skip_bits(&std::fs::read(&bits).unwrap(), 33));
    let o = baser(&["decode", &odd, "--profile", "verilog-ethernet"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("errored blocks (RX_E) 0"), "{out}");
    assert!(out.contains("block lock at bit offset 8151"), "{out}");
}

/// An RX stream as an RTL bench dumps it: the model's serial stream joined inside a frame, 7
/// blocks and 33 bits in. Under the verilog-ethernet profile the decoder decodes before lock
/// (as the RTL does) and the BER monitor, counting the lock search's invalid headers, raises
/// hi_ber before lock: the frames before the link comes up (a junk one made up and cut by the
/// lock search among them) are reported apart and do not decide the verdict; the RTL bench's
/// short BER timer (`--ber-timer`) brings the link up soon after lock, and every frame from
/// there is judged. The IEEE receiver joins the stream inside a frame and names the errored
/// block that gives as a frame cut by lock acquisition.
#[test]
fn a_stream_joined_inside_a_frame_is_judged_from_the_link_coming_up() {
    let s = Scratch::new("joined");
    let bits = s.path("rx.bits");
    let o = baser(&[
        "encode",
        "vectors/dic/frames.pcap",
        "--profile",
        "verilog-ethernet",
        "--idle-blocks",
        "0",
        "--bits",
        &bits,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let joined = s.file(
        "joined.bits",
        &skip_bits(&std::fs::read(&bits).unwrap(), 66 * 7 + 33),
    );
    let json = s.path("d.json");
    let ve = ["decode", &joined, "--profile", "verilog-ethernet"];
    let o = baser(&[&ve[..], &["--ber-timer", "100blocks", "--json", &json]].concat());
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("BER timer 100blocks"), "{out}");
    assert!(
        out.contains("frames: 54 while the link was up (ok 54); 11 more while it was down, not judged (error_character 1, ok 10)"),
        "{out}"
    );
    assert!(
        out.contains("frame 0 at block 28: error_character, started before block lock, on a block boundary the lock search had not confirmed: it may be cut, or made up, by the lock search (cut by lock acquisition)"),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["verdict"], "pass");
    assert_eq!(doc["frames"]["total"], 65);
    assert_eq!(doc["frames"]["while_link_down"]["error_character"], 1);
    assert_eq!(doc["pcs"]["link_down_frames"][0]["cause"], "before_lock");
    assert_eq!(doc["pcs"]["hi_ber_clears"][0], 200);
    // The standard's timer: hi_ber holds the link down to the end; nothing is judged, and the
    // report says which option the RTL bench's timer wants.
    let o = baser(&ve);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("frames: 0 while the link was up (none); 65 more while it was down"),
        "{out}"
    );
    assert!(out.contains("--ber-timer Nblocks"), "{out}");
    // A fault once the link is up still decides the verdict.
    let o = baser(
        &[
            &ve[..],
            &[
                "--ber-timer",
                "100blocks",
                "--inject",
                &format!("flip:{}", 66 * 600 + 30),
            ],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    // The IEEE receiver: its decoder holds RX_INIT until lock, then enters RX_E on the data
    // block it joins at (Fig. 49-17; its counter counts it), which is no fault of the stream.
    let o = baser(&["decode", &joined]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("block 133: RX_INIT --D--> RX_E: the first block after the link came up, inside a frame (a frame cut by lock acquisition"),
        "{out}"
    );
    assert!(out.contains("frames: 59 (ok 59)"), "{out}");
}

/// A dump of jumbo frames: decode's limit is 1518 octets (as a receiver's), and the report
/// says which option accepts the longer ones; the verilog-ethernet profile, whose MAC checks
/// no length, sets none; check takes its limit from the expected frames.
#[test]
fn jumbo_frames_get_a_hint_and_no_limit_under_a_profile_without_one() {
    for dut in ["vectors/jumbo/expected.bits", "vectors/jumbo/expected.b66"] {
        let o = baser(&["decode", dut]);
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains("frames: 2 (ok 1, too_long 1)"), "{out}");
        assert!(
            out.contains("hint: 1 frame too_long: longer than 1518 octets with the FCS (1522 with a VLAN tag), the longest 9004 octets with its FCS; --max-frame-length 9004 accepts them"),
            "{out}"
        );
        let o = baser(&["decode", dut, "--max-frame-length", "9004"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
        let o = baser(&["decode", dut, "--profile", "verilog-ethernet"]);
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}");
        assert!(out.contains("frames: 2 (ok 2)"), "{out}");
        assert!(!out.contains("too_long"), "{out}");
        // The option still sets a limit under the profile.
        let o = baser(&[
            "decode",
            dut,
            "--profile",
            "verilog-ethernet",
            "--max-frame-length",
            "2000",
        ]);
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains("longer than 2000 octets with the FCS"),
            "{out}"
        );
        let o = baser(&[
            "check",
            "--frames",
            "vectors/jumbo/frames.pcap",
            "--dut",
            dut,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    }
}

/// `baser convert` between the stream forms, against the golden vectors made by `encode`.
#[test]
fn convert_turns_each_stream_form_into_the_others() {
    let s = Scratch::new("convert");
    let blocks = |p: &str| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    let run = |args: &[&str]| {
        let o = baser(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {:?}", text(&o));
        text(&o).0
    };
    for case in ["demo", "jumbo", "dic"] {
        let v = |f: &str| format!("vectors/{case}/{f}");
        let up = |f: &str| format!("../vectors/{case}/{f}");
        // .b66 -> .bits: byte for byte the encoder's .bits.
        let bits = s.path(&format!("{case}.bits"));
        run(&["convert", &v("expected.b66"), &bits]);
        assert_eq!(
            std::fs::read(&bits).unwrap(),
            std::fs::read(up("expected.bits")).unwrap(),
            "{case}"
        );
        // .bits -> .b66 (boundary found) -> the same blocks, state unknown.
        let b66 = s.path(&format!("{case}.b66"));
        run(&["convert", &v("expected.bits"), &b66]);
        assert_eq!(blocks(&b66), blocks(&up("expected.b66")), "{case}");
        assert!(std::fs::read_to_string(&b66)
            .unwrap()
            .contains("# scrambler_state=auto"));
        // scrambled -> unscrambled and back, the state known from the file.
        let un = s.path(&format!("{case}-un.b66"));
        run(&["convert", &v("expected.b66"), &un, "--unscrambled"]);
        assert_eq!(
            blocks(&un),
            blocks(&up("expected-unscrambled.b66")),
            "{case}"
        );
        let re = s.path(&format!("{case}-re.b66"));
        run(&["convert", &un, &re]);
        assert_eq!(blocks(&re), blocks(&up("expected.b66")), "{case}");
        // .b66 -> .xgmii: the encoder's input, line for line.
        let xg = s.path(&format!("{case}.xgmii"));
        run(&["convert", &v("expected.b66"), &xg]);
        assert_eq!(blocks(&xg), blocks(&up("expected.xgmii")), "{case}");
    }
    // .xgmii -> .b66 through the PCS encoder.
    let b66 = s.path("cb.b66");
    run(&["convert", "vectors/control-blocks/input.xgmii", &b66]);
    assert_eq!(
        blocks(&b66),
        blocks("../vectors/control-blocks/expected.b66")
    );
    // A capture that starts 60 bits into a block: whole blocks from bit 6 on.
    let out = run(&["convert", "vectors/demo/dut.bits", &s.path("dut.b66")]);
    assert!(out.contains("blocks from bit 6 of the input"), "{out}");
    // Nonsense is refused.
    let o = baser(&["convert", "vectors/demo/frames.pcap", &s.path("x.b66")]);
    assert_eq!(o.status.code(), Some(2));
    let o = baser(&[
        "convert",
        "vectors/demo/expected.b66",
        &s.path("x.bits"),
        "--unscrambled",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// Sync headers written the other way round (data as 1) fail, with a hint that says so.
#[test]
fn swapped_sync_headers_get_a_hint() {
    let s = Scratch::new("swapped");
    let orig = std::fs::read_to_string("../vectors/demo/expected.b66").unwrap();
    let swapped: String = orig
        .lines()
        .map(|l| match l.as_bytes().first() {
            Some(b'1') => format!("2{}\n", &l[1..]),
            Some(b'2') => format!("1{}\n", &l[1..]),
            _ => format!("{l}\n"),
        })
        .collect();
    let dut = s.file("swapped.b66", swapped.as_bytes());
    let json = s.path("r.json");
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &dut,
        "--json",
        &json,
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("hint: the sync headers look swapped"), "{out}");
    assert!(std::fs::read_to_string(&json)
        .unwrap()
        .contains("look swapped"));
    let o = baser(&["decode", &dut]);
    assert!(text(&o).0.contains("hint: the sync headers look swapped"));
    // A stream with a few real errors gets no such hint.
    let o = baser(&["decode", "vectors/demo/dut.b66"]);
    assert!(!text(&o).0.contains("hint:"), "{}", text(&o).0);
}

/// `--blocks` compares frame by frame, so idle gaps a DUT inserts (a source that runs dry)
/// are its choice; the gaps are judged apart, by the deficit idle count rule.
#[test]
fn blocks_are_compared_frame_by_frame_and_gaps_by_the_dic_rule() {
    let s = Scratch::new("gaps");
    let lines: Vec<String> = std::fs::read_to_string("../vectors/dic/expected.xgmii")
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(String::from)
        .collect();
    // A transfer holding a /T/ (0xfd in a control lane) ends a frame.
    let ends = |l: &str| {
        let (c, d) = l.split_once(' ').unwrap();
        let (c, d) = (
            u8::from_str_radix(c, 16).unwrap(),
            u64::from_str_radix(d, 16).unwrap(),
        );
        (0..8).any(|i| c >> i & 1 == 1 && (d >> (8 * i)) as u8 == 0xfd)
    };
    let mut dry = String::new();
    let mut frames = 0;
    for l in &lines {
        dry.push_str(l);
        dry.push('\n');
        if ends(l) {
            frames += 1;
            if frames % 3 == 0 {
                dry.push_str(&"ff 0707070707070707\n".repeat(3));
            }
        }
    }
    let xg = s.file("dry.xgmii", dry.as_bytes());
    let b66 = s.path("dry.b66");
    let o = baser(&["convert", &xg, &b66]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = baser(&[
        "check",
        "--frames",
        "vectors/dic/frames.pcap",
        "--dut",
        &b66,
        "--blocks",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("72 model frames vs 72 DUT frames"), "{out}");
    assert!(out.contains(", 0 differ"), "{out}");
    assert!(out.contains("0 shorter than IFG 12"), "{out}");
    // One idle transfer taken out of a gap of 12 or more: frames still arrive intact, the gap
    // breaks the rule and is named.
    let mut short = Vec::new();
    let mut cut = false;
    for (i, l) in lines.iter().enumerate() {
        if !cut && i > 0 && ends(&lines[i - 1]) && l == "ff 0707070707070707" && i > 200 {
            cut = true;
            continue;
        }
        short.push(l.clone());
    }
    assert!(cut);
    let xg = s.file("short.xgmii", (short.join("\n") + "\n").as_bytes());
    let b66 = s.path("short.b66");
    assert_eq!(baser(&["convert", &xg, &b66]).status.code(), Some(0));
    let o = baser(&[
        "check",
        "--frames",
        "vectors/dic/frames.pcap",
        "--dut",
        &b66,
        "--blocks",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAIL pcs: IFG and deficit idle count (46.3.1.4): 1 of 71 gaps"),
        "{out}"
    );
    assert!(!out.contains("FAIL frames"), "{out}");
}

/// An `.xgmii` text's transfers as octets (octet, control), lane 0 first.
fn xgmii_octets(text: &str) -> Vec<(u8, bool)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| {
            let (c, d) = l.split_once(' ').unwrap();
            let (c, d) = (
                u8::from_str_radix(c, 16).unwrap(),
                u64::from_str_radix(d, 16).unwrap(),
            );
            (0..8).map(move |i| ((d >> (8 * i)) as u8, c >> i & 1 == 1))
        })
        .collect()
}

/// Octets back into `.xgmii` lines (idles to the last transfer's end).
fn xgmii_text(octets: &[(u8, bool)]) -> String {
    let mut out = String::new();
    for t in octets.chunks(8) {
        let (mut c, mut d) = (0u8, 0u64);
        for i in 0..8 {
            let (o, k) = t.get(i).copied().unwrap_or((0x07, true));
            c |= u8::from(k) << i;
            d |= u64::from(o) << (8 * i);
        }
        out.push_str(&format!("{c:02x} {d:016x}\n"));
    }
    out
}

/// A dump like verilog-ethernet's under cocotb when the AXI source runs dry: frames back to
/// back, and after some of them idle time of several transfers, so that the next frame starts
/// in lane 0 or in lane 4 where the model, sending back to back, would start it elsewhere.
/// Each frame is compared with the model's encoding from the DUT's start lane; the gaps are
/// judged apart; a bit flipped inside a frame is still found at its block.
#[test]
fn frames_after_idle_gaps_are_compared_from_the_dut_s_start_lane() {
    let s = Scratch::new("dry");
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let frames: Vec<Vec<u8>> = (0..120)
        .map(|i| {
            let len = 60 + (next() % 1455) as usize;
            let mut f: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            f[..12].copy_from_slice(&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, i as u8]);
            f
        })
        .collect();
    let pcap = s.file("frames.pcap", &pcap_bytes(&frames));
    let sent = s.path("sent.xgmii");
    let o = baser(&["encode", &pcap, "--xgmii", &sent, "--idle-blocks", "2"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // After about every third transfer that holds a /T/: 2 to 6 idle transfers, and 4 idle
    // octets more half of the time.
    let sent = xgmii_octets(&std::fs::read_to_string(&sent).unwrap());
    let mut dut = Vec::new();
    let (mut gaps, mut lane4) = (0, 0);
    for t in sent.chunks(8) {
        dut.extend_from_slice(t);
        if t.contains(&(0xfd, true)) && next() % 3 == 0 {
            let n = 8 * (2 + next() % 5) as usize + 4 * (next() % 2) as usize;
            dut.extend(std::iter::repeat_n((0x07, true), n));
            gaps += 1;
            lane4 += n % 8 / 4;
        }
    }
    assert!(gaps > 20 && lane4 > 5 && lane4 < gaps, "{gaps} {lane4}");
    let check = |octets: &[(u8, bool)], name: &str| {
        let xg = s.file(&format!("{name}.xgmii"), xgmii_text(octets).as_bytes());
        let b66 = s.path(&format!("{name}.b66"));
        assert_eq!(baser(&["convert", &xg, &b66]).status.code(), Some(0));
        let o = baser(&["check", "--frames", &pcap, "--dut", &b66, "--blocks"]);
        (o.status.code(), text(&o).0)
    };
    let (code, out) = check(&dut, "dry");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("120 model frames vs 120 DUT frames (0 and 0 without a partner)"),
        "{out}"
    );
    assert!(out.contains(", 0 differ"), "{out}");
    assert!(
        out.contains("gaps: 119 between the DUT's frames, 9.."),
        "{out}"
    );
    assert!(out.contains("0 shorter than IFG 12"), "{out}");
    // One data bit flipped in the middle of frame 60: found at its block, and nowhere else.
    let s60 = dut
        .iter()
        .enumerate()
        .filter(|(_, o)| **o == (0xfb, true))
        .nth(60)
        .unwrap()
        .0;
    let at = s60 + 8 + 100;
    let mut bad = dut.clone();
    bad[at].0 ^= 0x10;
    let (code, out) = check(&bad, "bad");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("FAIL pcs: blocks bit exact: 1 of "), "{out}");
    assert!(out.contains(&format!("DUT block {}\n", at / 8)), "{out}");
    assert!(
        out.contains("FAIL frames: frame 60 ") && out.contains("corrupted"),
        "{out}"
    );
    assert!(out.contains("first difference at octet 100: "), "{out}");
}

/// A text line far over the cap (64 MiB of hex digits, no line end) is refused with its line
/// number in constant memory: under a 64 MiB address-space limit (the old reader took twice
/// the line and aborted).
#[test]
fn an_endless_text_line_is_refused_in_constant_memory() {
    let s = Scratch::new("longline");
    let write = |name: &str, head: &[u8]| {
        use std::io::Write;
        let p = s.path(name);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        f.write_all(head).unwrap();
        let chunk = b"0123456789abcdef".repeat(65536);
        for _ in 0..64 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"\n").unwrap();
        p
    };
    let p = write("long.b66", b"# scrambled\n1 000000000000001e\n");
    let xg = write("long.xgmii", b"ff 0707070707070707\n");
    for (file, kind) in [(&p, "b66"), (&xg, "xgmii")] {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 65536; exec '{}' decode '{file}' --format {kind}",
                env!("CARGO_BIN_EXE_baser")
            ))
            .output()
            .unwrap();
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{kind}: {err}");
        let line = if kind == "b66" { 3 } else { 2 };
        assert!(
            err.contains(&format!(":{line}: line longer than 4096 characters")),
            "{kind}: {err}"
        );
    }
}

/// Flags that mean nothing in a mode are refused there, not silently ignored.
#[test]
fn mac_flags_are_refused_for_an_xgmii_trace() {
    for flag in [
        &["--idle-blocks", "4"][..],
        &["--ifg", "9"],
        &["--no-dic"],
        &["--no-pad"],
        &["--fcs-included"],
    ] {
        let mut args = vec!["encode", "vectors/control-blocks/input.xgmii"];
        args.extend_from_slice(flag);
        let o = baser(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{flag:?}: {err}");
        assert!(err.contains(flag[0]) && err.contains("skips"), "{err}");
    }
    assert_eq!(
        baser(&["encode", "vectors/control-blocks/input.xgmii"])
            .status
            .code(),
        Some(0)
    );
}

/// Writes a pcap (LINKTYPE_ETHERNET) of `frames`.
fn pcap_bytes(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    for v in [0u32, 0, 65535, 1] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for f in frames {
        for v in [0u32, 0, f.len() as u32, f.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    out
}

/// A test that sends faults on purpose passes when the DUT does what the outcomes file says,
/// and fails, naming the frame, when it does not.
#[test]
fn expected_outcomes_let_an_error_path_test_pass() {
    let s = Scratch::new("outcomes");
    let frames: Vec<Vec<u8>> = (0..8u8)
        .map(|i| {
            let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xb5];
            f.extend((0..60 + usize::from(i) * 20).map(|k| k as u8 ^ i));
            f
        })
        .collect();
    let expected = s.file("expected.pcap", &pcap_bytes(&frames));
    // What the DUT sends: frame 2 with a bad FCS, frame 5 dropped, the rest intact.
    let dut_frames: Vec<Vec<u8>> = frames
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 5)
        .map(|(i, f)| {
            let mut f = f.clone();
            let fcs = crc32fast::hash(&f) ^ u32::from(i == 2);
            f.extend_from_slice(&fcs.to_le_bytes());
            f
        })
        .collect();
    let sent = s.file("sent.pcap", &pcap_bytes(&dut_frames));
    let dut = s.path("dut.b66");
    let o = baser(&["encode", &sent, "--fcs-included", "--b66", &dut]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let check = |outcomes: Option<&str>| {
        let mut args = vec!["check", "--frames", &expected, "--dut", &dut];
        let path = s.path("outcomes.txt");
        if let Some(o) = outcomes {
            std::fs::write(&path, o).unwrap();
            args.extend(["--outcomes", &path]);
        }
        let o = baser(&args);
        (o.status.code(), text(&o).0)
    };
    let (code, out) = check(None);
    assert_eq!(code, Some(1), "{out}");
    let (code, out) = check(Some("# the test's faults\n2 fcs_error\n5 dropped\n"));
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("outcomes: 2 frames with an expected fault, 2 as expected"),
        "{out}"
    );
    let (code, out) = check(Some("2 fcs_error\n5 runt\n"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FAIL frames: frame 5 (174 octets): expected runt, but not delivered"),
        "{out}"
    );
    let (code, out) = check(Some("2 dropped\n5 dropped\n"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("expected dropped, but delivered (class fcs_error)"),
        "{out}"
    );
    let (code, out) = check(Some("2 fcs_eror\n"));
    assert_eq!(code, Some(2), "{out}");
}

/// A profile whose decoder works block by block names its errors in its own terms (R_TYPE E),
/// not with the IEEE diagram's arrows, and counts only the blocks it turns into /E/: the frame
/// that starts right after an aborted one is received (IEEE: RX_E --S--> RX_E, lost).
#[test]
fn a_block_by_block_profile_names_events_in_its_own_terms() {
    let s = Scratch::new("bybl");
    let trace = "ff 0707070707070707\nff 0707070707070707\n01 d5555555555555fb\n\
                 00 0000000000000002\n00 1122334455660001\nff 070707fdfefefefe\n\
                 01 d5555555555555fb\n00 0000000000000002\n00 2222334455660001\n"
        .to_string()
        + &"00 8899aabbccddeeff\n".repeat(7)
        + "fe 070707070707fd77\nff 0707070707070707\nff 0707070707070707\n";
    let xg = s.file("abort.xgmii", trace.as_bytes());
    let b66 = s.path("abort.b66");
    let o = baser(&[
        "encode",
        &xg,
        "--profile",
        "verilog-ethernet",
        "--b66",
        &b66,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = baser(&["decode", &b66, "--profile", "verilog-ethernet"]);
    let (out, _) = text(&o);
    assert!(out.contains("errored blocks (RX_E) 1"), "{out}");
    assert!(
        out.contains("block 5: R_TYPE E (decoded block by block)"),
        "{out}"
    );
    assert!(!out.contains("RX_E --S--> RX_E"), "{out}");
    assert!(
        out.contains("frames: 2 (error_character 1, fcs_error 1)"),
        "{out}"
    );
    // The IEEE decoder on the same stream: the start after the abort is lost.
    let o = baser(&["decode", &b66]);
    let (out, _) = text(&o);
    assert!(out.contains("block 6: RX_E --S--> RX_E"), "{out}");
    assert!(out.contains("frames: 1 (error_character 1)"), "{out}");
}

/// Hits of `bin` in `group` of a coverage document.
fn hits(doc: &serde_json::Value, group: &str, bin: &str) -> u64 {
    let g = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == group)
        .unwrap_or_else(|| panic!("no group {group}"));
    g["bins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == bin)
        .unwrap_or_else(|| panic!("no bin {bin} in {group}"))["hits"]
        .as_u64()
        .unwrap()
}

fn group_sum(doc: &serde_json::Value, group: &str) -> u64 {
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == group)
        .unwrap()["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["hits"].as_u64().unwrap())
        .sum()
}

/// The coverage of golden vectors against a count by hand from their definitions
/// (testbench/tests/golden.rs): `dic` sends frames of 60..=131 octets without FCS, one each,
/// back to back after 128 idles; `terminate-lanes` 60..=67.
#[test]
fn coverage_of_the_vectors_equals_a_hand_count() {
    let s = Scratch::new("coverage");
    let json = s.path("dic.json");
    let o = baser(&["coverage", "vectors/dic/expected.b66", "--json", &json]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // 72 frames of 64..=135 octets with FCS.
    assert_eq!(hits(&doc, "frame_length", "64"), 1);
    assert_eq!(hits(&doc, "frame_length", "65..127"), 63);
    assert_eq!(hits(&doc, "frame_length", "128..255"), 8);
    assert_eq!(hits(&doc, "mac_class", "ok"), 72);
    assert_eq!(group_sum(&doc, "mac_class"), 72);
    assert_eq!(group_sum(&doc, "start_lane"), 72);
    assert_eq!(group_sum(&doc, "terminate_lane"), 72);
    // Each frame: one start arrow into RX_D (from RX_C, or from RX_T when it follows the
    // previous /T/ block at once) and one RX_D --T--> RX_T; nothing into RX_E.
    assert_eq!(hits(&doc, "rx_arrows", "RX_D --T--> RX_T"), 72);
    assert_eq!(
        hits(&doc, "rx_arrows", "RX_C --S--> RX_D") + hits(&doc, "rx_arrows", "RX_T --S--> RX_D"),
        72
    );
    // 128 leading idles: the first trains the descrambler, the second is the decoder's first.
    assert_eq!(hits(&doc, "rx_arrows", "RX_INIT --C--> RX_C"), 1);
    assert_eq!(
        hits(&doc, "block_formats", "invalid sync header (00 or 11)"),
        0
    );
    assert_eq!(hits(&doc, "dic", "gap shorter than DIC allows"), 0);
    // 71 gaps, each 9..15 octets.
    assert_eq!(group_sum(&doc, "ifg"), 71);
    assert_eq!(group_sum(&doc, "dic"), 71);
    assert!(out.contains("HOLE  reserved block type"), "{out}");

    // terminate-lanes: frame i (60 + i octets, 72 + i from /S/ to /T/) by hand, IFG 12 with the
    // deficit idle count d (a gap rounded down to lane 0 or 4 while d stays <= 3, else up):
    //   /S/ at 0:   /T/ at 72 (lane 0), next /S/ 84 (gap 12, d 0)
    //   /S/ at 84:  /T/ at 157 (lane 5), 169 -> 168 (d 1)
    //   /S/ at 168: /T/ at 242 (lane 2), 254 -> 252 (d 3)
    //   /S/ at 252: /T/ at 327 (lane 7), 339 -> 340 (d 2)
    //   /S/ at 340: /T/ at 416 (lane 0), 428 (d 2)
    //   /S/ at 428: /T/ at 505 (lane 1), 517 -> 516 (d 3)
    //   /S/ at 516: /T/ at 594 (lane 2), 606 -> 608 (d 1)
    //   /S/ at 608: /T/ at 687 (lane 7)
    let t = s.path("t.json");
    baser(&[
        "coverage",
        "vectors/terminate-lanes/expected.xgmii",
        "--json",
        &t,
    ]);
    let doc_t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&t).unwrap()).unwrap();
    for (lane, n) in [2, 1, 2, 0, 0, 1, 0, 2].into_iter().enumerate() {
        assert_eq!(
            hits(&doc_t, "terminate_lane", &format!("lane {lane}")),
            n,
            "lane {lane}"
        );
    }
    // starts: 0, 84, 168, 252, 340, 428, 516, 608: lanes 0 4 0 4 4 4 4 0
    assert_eq!(hits(&doc_t, "start_lane", "lane 0"), 3);
    assert_eq!(hits(&doc_t, "start_lane", "lane 4"), 5);
    for (bin, n) in [
        ("deficit 0", 1),
        ("deficit 1", 2),
        ("deficit 2", 2),
        ("deficit 3", 2),
    ] {
        assert_eq!(hits(&doc_t, "dic", bin), n, "{bin}");
    }

    // Merging adds bin by bin; the gate fails under the percent asked.
    let m = s.path("m.json");
    let o = baser(&["coverage", &json, &t, "--json", &m, "--fail-under", "100"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("2 runs") && out.contains("FAIL:"), "{out}");
    let doc_m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    assert_eq!(group_sum(&doc_m, "mac_class"), 80);
    assert_eq!(
        hits(&doc_m, "terminate_lane", "lane 0"),
        hits(&doc, "terminate_lane", "lane 0") + 2
    );
    assert_eq!(
        baser(&["coverage", &m, "--fail-under", "10"]).status.code(),
        Some(0)
    );

    // decode --coverage counts what coverage counts.
    let d = s.path("d.json");
    baser(&["decode", "vectors/dic/expected.b66", "--coverage", &d]);
    let doc_d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&d).unwrap()).unwrap();
    assert_eq!(doc_d["groups"], doc["groups"]);
    // ... and check --coverage on the demo DUT sees its faults.
    let c = s.path("c.json");
    baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        "vectors/demo/dut.b66",
        "--coverage",
        &c,
    ]);
    let doc_c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&c).unwrap()).unwrap();
    assert_eq!(
        hits(&doc_c, "block_formats", "invalid sync header (00 or 11)"),
        1
    );
    assert_eq!(hits(&doc_c, "mac_class", "fcs_error"), 1);
    // A file that is not a coverage document is named.
    let bad = s.file("bad.json", b"{\"x\": 1}");
    let o = baser(&["coverage", &bad]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("bad.json") && text(&o).1.contains("not a coverage document"));
}

/// `baser gen`: the same seed gives the same files; the model as the DUT passes the check of
/// the generated expectation (its counts too); `--cover` hits every bin.
#[test]
fn gen_makes_reproducible_stimulus_with_its_expected_outcome() {
    let s = Scratch::new("gen");
    // (seed 4 of --hostile has a bit slip: stream.bits only)
    for (seed, hostile) in [("3", false), ("5", true), ("4", true)] {
        let (a, b) = (s.path(&format!("a{seed}")), s.path(&format!("b{seed}")));
        for d in [&a, &b] {
            let mut args = vec!["gen", "--seed", seed, "--items", "30", "--out", d.as_str()];
            if hostile {
                args.push("--hostile");
            }
            let o = baser(&args);
            assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
        }
        let slipped = !std::path::Path::new(&format!("{a}/stream.b66")).exists();
        assert_eq!(
            slipped,
            seed == "4",
            "seed {seed}: stream.b66 is written unless slipped"
        );
        for f in [
            "frames.pcap",
            "stream.xgmii",
            "stream.bits",
            "expected.json",
            "outcomes.txt",
        ] {
            let (x, y) = (
                std::fs::read(format!("{a}/{f}")).unwrap(),
                std::fs::read(format!("{b}/{f}")).unwrap(),
            );
            assert!(
                x == y && !x.is_empty(),
                "{f} differs between two runs of seed {seed}"
            );
        }
        // The model's receiver as the DUT: its XGMII output checked against the expectation.
        let (dut, summary) = (format!("{a}/dut.xgmii"), format!("{a}/decode.json"));
        baser(&[
            "decode",
            &format!("{a}/stream.bits"),
            "--xgmii",
            &dut,
            "--json",
            &summary,
        ]);
        let o = baser(&[
            "check",
            "--frames",
            &format!("{a}/frames.pcap"),
            "--dut",
            &dut,
            "--outcomes",
            &format!("{a}/expected.json"),
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "seed {seed}: {out}{err}");
        let exp: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{a}/expected.json")).unwrap())
                .unwrap();
        let got: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
        // (null: not predicted, as after a bit slip)
        for k in ["invalid_headers", "errored_blocks"] {
            if !exp["pcs"][k].is_null() {
                assert_eq!(exp["pcs"][k], got["pcs"][k], "seed {seed}: {k}");
            }
        }
        if let Some(n) = exp["pcs"]["hi_ber_episodes"].as_u64() {
            assert_eq!(
                n,
                got["pcs"]["hi_ber_episodes"].as_array().unwrap().len() as u64
            );
        }
        assert_eq!(
            exp["pcs"]["lock_losses"].as_u64().unwrap(),
            got["pcs"]["lock_losses"].as_array().unwrap().len() as u64,
            "seed {seed}"
        );
        if hostile {
            assert!(
                !exp["events"].as_array().unwrap().is_empty(),
                "seed {seed} has no line fault"
            );
        }
        // The outcomes file says the same as expected.json.
        let o = baser(&[
            "check",
            "--frames",
            &format!("{a}/frames.pcap"),
            "--dut",
            &dut,
            "--outcomes",
            &format!("{a}/outcomes.txt"),
            "--max-frame-length",
            "1518",
        ]);
        assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    }
    // --cover: every bin hit by the cover files together.
    let c = s.path("cover");
    assert_eq!(
        baser(&["gen", "--seed", "1", "--cover", "--out", &c])
            .status
            .code(),
        Some(0)
    );
    let files: Vec<String> = [
        "stream.bits",
        "stream.xgmii",
        "tx-init-S.xgmii",
        "tx-init-D.xgmii",
        "tx-init-T.xgmii",
        "tx-init-E.xgmii",
    ]
    .iter()
    .map(|f| format!("{c}/{f}"))
    .collect();
    let mut args = vec!["coverage", "--fail-under", "100"];
    args.extend(files.iter().map(String::as_str));
    let o = baser(&args);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("(100.0 %)") && !out.contains("HOLE"), "{out}");
}

/// `baser gen --test-pattern`: the serial stream, read back by the core's checker (§49.2.12),
/// counts the errors expected.json names.
#[test]
fn gen_test_patterns_carry_their_error_count() {
    use pcs_core::{Prbs31Checker, Prbs31Polarity};
    let s = Scratch::new("gen-tp");
    let d = s.path("tp");
    let o = baser(&[
        "gen",
        "--seed",
        "9",
        "--test-pattern",
        "prbs31-inverted",
        "--blocks",
        "3000",
        "--errors",
        "7",
        "--out",
        &d,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let bits = std::fs::read(format!("{d}/stream.bits")).unwrap();
    let mut c = Prbs31Checker::new(Prbs31Polarity::Inverted);
    let counted: u64 = bits
        .chunks_exact(8)
        .map(|w| c.check_word(u64::from_le_bytes(w.try_into().unwrap())))
        .sum();
    let exp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{d}/expected.json")).unwrap())
            .unwrap();
    assert_eq!(exp["errors"].as_u64(), Some(counted));
    assert_eq!(counted, 21, "7 flips, 3 counts each");
    let o = baser(&["gen", "--seed", "9", "--test-pattern", "prbs7", "--out", &d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("unknown test pattern"));
}

#[test]
fn bench_sets_each_command_beside_its_file_work_and_its_bounds() {
    let s = Scratch::new("bench");
    let json = s.path("bench.json");
    let dir = s.0.to_string_lossy().into_owned();
    let o = baser(&[
        "bench",
        "--seconds",
        "0.05",
        "--runs",
        "1",
        "--mix",
        "min",
        "--cli-frames",
        "300",
        "--dir",
        &dir,
        "--json",
        &json,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let commands = d["commands"].as_array().unwrap();
    assert_eq!(commands.len(), 3);
    for c in commands {
        let num = |k: &str| c[k].as_f64().unwrap_or_else(|| panic!("{k} in {c}"));
        let (x, vs, read, write, bound, serial) = (
            num("x_10g"),
            num("vs_chain"),
            num("read_x_10g"),
            num("write_x_10g"),
            num("bound_x_10g"),
            num("serial_bound_x_10g"),
        );
        let chain = x / vs;
        assert!(x > 0.0 && read > 0.0 && write > 0.0 && serial > 0.0, "{c}");
        // The command's thread (reading, then the chain) and the writing thread side by side:
        // the slower of the two.
        let thread = 1.0 / (1.0 / read + 1.0 / chain);
        assert!((bound - thread.min(write)).abs() < 1e-9 * bound, "{c}");
        assert!(bound <= write && bound < chain && bound < read, "{c}");
        // One after the other on one core: slower than side by side.
        assert!(serial < bound, "{c}");
        assert!(
            (1.0 / serial - (1.0 / read + 1.0 / write + 1.0 / chain)).abs() < 1e-9 / serial,
            "{c}"
        );
    }
    // The commands' files (and the file work's scratch file) are gone: only the report is left.
    let left: Vec<_> = std::fs::read_dir(&s.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["bench.json"]);
}

#[test]
fn bench_reps_runs_the_chains_asked_for_over_a_fixed_amount_of_work() {
    // Untimed: the blocks are the same on every run, three runs are three times one.
    let blocks = |reps: &str, chain: &str| -> u64 {
        let o = baser(&["bench", "--reps", reps, "--mix", "min", "--chain", chain]);
        assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
        let (out, _) = text(&o);
        let line = out.trim();
        assert!(
            line.starts_with(&format!("{chain} 64-octet: {reps} runs, ")),
            "{line}"
        );
        assert_eq!(out.lines().count(), 1, "{out}");
        line.rsplit(", ")
            .next()
            .and_then(|b| b.strip_suffix(" blocks"))
            .and_then(|b| b.parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    for chain in ["tx", "rx"] {
        let one = blocks("1", chain);
        // 2,000 frames of 64 octets: 10.5 blocks each on the line.
        assert!((20_990..21_400).contains(&one), "{chain}: {one}");
        assert!(blocks("3", chain).abs_diff(3 * one) <= 2, "{chain}");
    }
    let o = baser(&["bench", "--reps", "1", "--chain", "both"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(
        text(&o).1.contains("unknown chain `both`"),
        "{:?}",
        text(&o)
    );
}

/// An output that is the command's input (by its own name, through another path or a link)
/// is refused before anything is written: exit 2, a message naming both, and the input
/// whole. (With the file emptied at creation, `decode x.bits --pcap x.bits` used to destroy
/// the input and then complain that it was empty.) Two outputs that name one file are refused
/// too, and neither is created.
#[test]
fn an_output_in_a_missing_folder_over_an_input_or_over_another_output_is_refused_at_once() {
    let s = Scratch::new("same-file");
    let bits = std::fs::read("vectors/demo/dut.bits")
        .or_else(|_| std::fs::read("../vectors/demo/dut.bits"))
        .unwrap();
    let input = s.file("dut.bits", &bits);
    std::os::unix::fs::symlink(&input, s.path("link.bits")).unwrap();
    let dotted = format!("{}/./dut.bits", s.path(""));
    for args in [
        vec!["decode", &input, "--pcap", &input],
        vec!["decode", &input, "--xgmii", &dotted],
        vec!["convert", &input, &s.path("link.bits")],
        vec![
            "check",
            "--frames",
            "vectors/demo/frames.pcap",
            "--dut",
            &input,
            "--html",
            &input,
        ],
        vec!["coverage", &input, "--json", &s.path("link.bits")],
        // Refused before any interface is looked at (there is none of that name).
        vec!["wire", "--tx", "baser-none", &input, "--json", &input],
        vec![
            "reflect",
            "--iface",
            "baser-none",
            "--inject",
            &input,
            "--inject-every",
            "5",
            "--json",
            &input,
        ],
    ] {
        let o = baser(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("cannot write: it is the input") && err.contains(&input),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), bits, "{args:?}");
    }
    let out = s.path("out.bits");
    let o = baser(&[
        "encode",
        "vectors/demo/frames.pcap",
        "--b66",
        &out,
        "--bits",
        &format!(
            "{0}/../{1}/out.bits",
            s.path(""),
            s.0.file_name().unwrap().to_string_lossy()
        ),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is written by this command already"), "{err}");
    assert!(!Path::new(&out).exists());
    // A report in a folder that does not exist is refused before the check runs (nothing
    // printed), not after it (reports are written at the end).
    let nowhere = s.path("no/such/folder/r.json");
    let o = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &input,
        "--json",
        &nowhere,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{nowhere}: cannot write: its folder "))
            && err.contains("does not exist"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
    // The same for `bench`, whose JSON comes after minutes of measuring.
    let o = baser(&[
        "bench",
        "--seconds",
        "0.1",
        "--runs",
        "1",
        "--cli-frames",
        "0",
        "--json",
        &nowhere,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("its folder ") && out.is_empty(), "{out}{err}");
    // Coverage reads every input before it writes: its merged JSON may go over a JSON input
    // (a run added to a running total), though never over a stream dump (above).
    let total = s.path("total.json");
    let o = baser(&["coverage", &input, "--json", &total]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let o = baser(&["coverage", &total, &input, "--json", &total]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let runs = std::fs::read_to_string(&total).unwrap();
    let runs: serde_json::Value = serde_json::from_str(&runs).unwrap();
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(2), "{runs}");
    // Apart, the same command writes both (the demo's DUT stream has faults: exit 1).
    let o = baser(&[
        "decode",
        &input,
        "--pcap",
        &s.path("a.pcap"),
        "--xgmii",
        &s.path("a.xgmii"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).1);
    for p in ["a.pcap", "a.xgmii"] {
        assert!(std::fs::metadata(s.path(p)).unwrap().len() > 0, "{p}");
    }
}

/// Output files are written by a thread of their own (outfile.rs): a full disk still ends the
/// command with exit 2 and a message naming the file, whether the error comes at the end of a
/// small output or in the middle of a large one (2 M idle blocks, 17 MB of `.bits`).
#[test]
fn a_full_disk_is_an_error_naming_the_file() {
    for (args, large) in [
        (
            &["encode", "vectors/demo/frames.pcap", "--bits", "/dev/full"][..],
            false,
        ),
        (
            &["encode", "vectors/demo/frames.pcap", "--b66", "/dev/full"],
            false,
        ),
        (
            &["encode", "vectors/demo/frames.pcap", "--xgmii", "/dev/full"],
            false,
        ),
        (
            &["decode", "vectors/demo/dut.bits", "--pcap", "/dev/full"],
            false,
        ),
        (
            &[
                "encode",
                "vectors/demo/frames.pcap",
                "--idle-blocks",
                "2000000",
                "--bits",
                "/dev/full",
            ],
            true,
        ),
    ] {
        let o = baser(args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?} (large: {large}): {err}");
        assert!(
            err.contains("/dev/full: cannot write: No space left on device"),
            "{args:?}: {err}"
        );
    }
}
