//! The FECs through the command, as a user runs them: `baser encode --fec` writes the line,
//! `baser decode --fec` locks on it from any bit offset and gives the frames back, with the
//! counters the faults predict (docs/fec.md).

use baser_files::pcap::{FrameReader, FrameWriter};
use std::path::{Path, PathBuf};
use std::process::Command;

fn baser() -> Command {
    Command::new(env!("CARGO_BIN_EXE_baser"))
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("baser-fec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `n` frames of lengths 60..1514 in a pcap.
fn pcap(d: &Path, n: usize) -> (PathBuf, Vec<Vec<u8>>) {
    let p = d.join("frames.pcap");
    let mut w = FrameWriter::new(std::fs::File::create(&p).unwrap()).unwrap();
    let mut frames = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = 60 + (x % 1455) as usize;
        let f: Vec<u8> = (0..len).map(|k| (k as u64 ^ x >> (k % 50)) as u8).collect();
        w.write(std::time::Duration::from_micros(i as u64), &f)
            .unwrap();
        frames.push(f);
    }
    w.finish().unwrap();
    (p, frames)
}

fn frames_of(p: &Path) -> Vec<Vec<u8>> {
    let mut r = FrameReader::open(p, false).unwrap();
    let mut out = Vec::new();
    while let Some(f) = r.next_ref() {
        out.push(f.unwrap().data.to_vec());
    }
    out
}

/// Runs the command; its exit code and its JSON report (when `json` is given).
fn run(args: &[&str], json: Option<&Path>) -> (i32, serde_json::Value, String) {
    let mut c = baser();
    c.args(args);
    if let Some(j) = json {
        c.arg("--json").arg(j);
    }
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let doc = json.map_or(serde_json::Value::Null, |j| {
        serde_json::from_str(&std::fs::read_to_string(j).unwrap()).unwrap()
    });
    (out.status.code().unwrap_or(-1), doc, text)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn an_rs_fec_stream_decodes_back_to_its_frames_with_7_symbols_corrected_in_every_codeword() {
    let d = dir("rs");
    let (frames_pcap, frames) = pcap(&d, 150);
    let line = d.join("line.bits");
    let b66 = d.join("pcs.b66");
    let (code, _, text) = run(
        &[
            "encode",
            s(&frames_pcap),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--bits",
            s(&line),
            "--b66",
            s(&b66),
        ],
        None,
    );
    assert_eq!(code, 0, "{text}");
    let codewords = std::fs::metadata(&line).unwrap().len() * 8 / 5280;
    assert!(codewords > 20, "{codewords}");
    // Clean: every frame back, the counters at zero.
    let got = d.join("got.pcap");
    let json = d.join("r.json");
    let (code, doc, text) = run(
        &[
            "decode",
            s(&line),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--pcap",
            s(&got),
        ],
        Some(&json),
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(frames_of(&got), frames);
    let fec = &doc["fec"];
    assert_eq!(fec["kind"], "rs");
    assert_eq!(fec["codewords"], codewords);
    assert_eq!(fec["corrected_codewords"], 0);
    assert_eq!(fec["uncorrected_codewords"], 0);
    assert_eq!(fec["lock"]["acquired_at_bit"], 0);
    // 7 symbol errors in every codeword: all corrected, counted as injected.
    let hurt = d.join("hurt.bits");
    let mut args: Vec<String> = [
        "encode",
        s(&frames_pcap),
        "--rate",
        "25g",
        "--fec",
        "rs",
        "--bits",
        s(&hurt),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    for c in 0..codewords {
        args.push("--inject".into());
        args.push(format!("symbols:{c}:7"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, text) = run(&args, None);
    assert_eq!(code, 0, "{text}");
    let (code, doc, text) = run(
        &[
            "decode",
            s(&hurt),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--pcap",
            s(&got),
        ],
        Some(&json),
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(frames_of(&got), frames);
    assert_eq!(doc["fec"]["corrected_codewords"], codewords);
    assert_eq!(doc["fec"]["corrected_symbols"], 7 * codewords);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn eight_symbols_in_one_codeword_name_exactly_the_frames_in_it() {
    let d = dir("rs8");
    let (frames_pcap, frames) = pcap(&d, 150);
    let line = d.join("line.bits");
    let (code, _, text) = run(
        &[
            "encode",
            s(&frames_pcap),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--bits",
            s(&line),
            "--inject",
            "symbols:9:8",
        ],
        None,
    );
    assert_eq!(code, 0, "{text}");
    let got = d.join("got.pcap");
    let json = d.join("r.json");
    let (code, doc, text) = run(
        &[
            "decode",
            s(&line),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--pcap",
            s(&got),
        ],
        Some(&json),
    );
    assert_eq!(code, 1, "{text}");
    let fec = &doc["fec"];
    assert_eq!(fec["uncorrected_codewords"], 1);
    let u = &fec["uncorrectable"][0];
    assert_eq!(u["index"], 9);
    let hit: Vec<u64> = u["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(!hit.is_empty(), "{text}");
    // The frames named are the ones that did not come back whole; every other one did.
    let back = frames_of(&got);
    let lost: Vec<usize> = (0..frames.len())
        .filter(|&i| !back.contains(&frames[i]))
        .collect();
    assert!(!lost.is_empty());
    assert!(lost.len() <= hit.len(), "lost {lost:?}, named {hit:?}");
    assert!(text.contains("uncorrectable codeword 9"), "{text}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn clause_74_corrects_an_11_bit_burst_and_flags_a_12_bit_one_from_any_bit_offset() {
    let d = dir("fc");
    let (frames_pcap, frames) = pcap(&d, 60);
    let got = d.join("got.pcap");
    let json = d.join("r.json");
    for (len, code_expected) in [(11u32, 0), (12, 1)] {
        let line = d.join(format!("line{len}.bits"));
        // The burst inside a frame's FEC block (FEC block 25: after the 600 leading idles,
        // which a receiver 13 bits off spends acquiring lock).
        let burst = format!("burst:{}:{len}", 25 * 2112 + 700);
        let (code, _, text) = run(
            &[
                "encode",
                s(&frames_pcap),
                "--fec",
                "fc",
                "--bits",
                s(&line),
                "--idle-blocks",
                "600",
                "--inject",
                &burst,
            ],
            None,
        );
        assert_eq!(code, 0, "{text}");
        // 13 bits of junk in front: the FEC finds its block boundary by slipping.
        let mut bytes = std::fs::read(&line).unwrap();
        let mut shifted = vec![0u8; bytes.len() + 2];
        for bit in 0..bytes.len() * 8 {
            if bytes[bit / 8] >> (bit % 8) & 1 == 1 {
                let b = bit + 13;
                shifted[b / 8] |= 1 << (b % 8);
            }
        }
        shifted[0] |= 0x6b;
        shifted[1] |= 0x15;
        bytes = shifted;
        std::fs::write(&line, &bytes).unwrap();
        let (code, doc, text) = run(
            &["decode", s(&line), "--fec", "fc", "--pcap", s(&got)],
            Some(&json),
        );
        assert_eq!(code, code_expected, "{text}");
        let fec = &doc["fec"];
        // Lock after n = 2 good FEC blocks: the second starts 2112 + 13 bits in (after the
        // slips through the first block's offsets).
        assert!(
            fec["lock"]["acquired_at_bit"].as_u64().unwrap() % 2112 == 13,
            "{fec}"
        );
        if len == 11 {
            assert_eq!(fec["corrected_codewords"], 1);
            assert_eq!(fec["corrected_bits"], 11);
            assert_eq!(frames_of(&got), frames);
        } else {
            assert_eq!(fec["uncorrected_codewords"], 1);
            assert_eq!(fec["uncorrectable"][0]["bit"], 25 * 2112 + 13);
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_fec_the_rate_lacks_and_block_faults_below_the_fec_are_refused_by_name() {
    let d = dir("refuse");
    let (frames_pcap, _) = pcap(&d, 3);
    let line = d.join("line.bits");
    let (code, _, text) = run(
        &["encode", s(&frames_pcap), "--fec", "rs", "--bits", s(&line)],
        None,
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--rate 25g"), "{text}");
    let (code, _, text) = run(
        &[
            "encode",
            s(&frames_pcap),
            "--fec",
            "fc",
            "--bits",
            s(&line),
            "--inject",
            "header:3",
        ],
        None,
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("below the FEC"), "{text}");
    let (code, _, text) = run(&["encode", s(&frames_pcap), "--fec", "consortium"], None);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("Consortium"), "{text}");
    std::fs::remove_dir_all(&d).ok();
}

/// `baser encode FRAMES --rate 25g --fec rs --bits LINE` with `--inject` faults.
fn rs_line(frames_pcap: &Path, line: &Path, faults: &[String]) {
    let mut args: Vec<String> = [
        "encode",
        s(frames_pcap),
        "--rate",
        "25g",
        "--fec",
        "rs",
        "--bits",
        s(line),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    for f in faults {
        args.push("--inject".into());
        args.push(f.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, text) = run(&args, None);
    assert_eq!(code, 0, "{text}");
}

/// `baser encode FRAMES --bits LINE` with `extra` (rate, FEC, faults): it must succeed.
fn encode_line(frames_pcap: &Path, line: &Path, extra: &[&str]) {
    let mut args = vec!["encode", s(frames_pcap), "--bits", s(line)];
    args.extend_from_slice(extra);
    let (code, _, text) = run(&args, None);
    assert_eq!(code, 0, "{text}");
}

/// The received frames of a clean decode (`decode -v`): index, `/S/` block and lane, octets
/// after the SFD.
fn placements(line: &Path, fec: &[&str]) -> Vec<(u64, u64, u64, u64)> {
    let mut args = vec!["decode", "-v", s(line)];
    args.extend_from_slice(fec);
    let (_, _, text) = run(&args, None);
    text.lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("frame ")?;
            let (i, rest) = l.split_once(": block ")?;
            let (b, rest) = rest.split_once(" lane ")?;
            let (lane, rest) = rest.split_once(", ")?;
            let (n, _) = rest.split_once(" octets")?;
            Some((
                i.parse().ok()?,
                b.parse().ok()?,
                lane.parse().ok()?,
                n.parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn check_passes_on_a_clean_rs_line_and_on_7_symbols_a_codeword_with_the_counters() {
    let d = dir("check-rs");
    let (frames_pcap, _) = pcap(&d, 120);
    let line = d.join("line.bits");
    rs_line(&frames_pcap, &line, &[]);
    let codewords = std::fs::metadata(&line).unwrap().len() * 8 / 5280;
    let json = d.join("c.json");
    let junit = d.join("c.xml");
    let check = |line: &Path| {
        run(
            &[
                "check",
                "--frames",
                s(&frames_pcap),
                "--dut",
                s(line),
                "--rate",
                "25g",
                "--fec",
                "rs",
                "--junit",
                s(&junit),
            ],
            Some(&json),
        )
    };
    let (code, doc, text) = check(&line);
    assert_eq!(code, 0, "{text}");
    assert_eq!(doc["verdict"], "pass");
    assert_eq!(doc["fec"]["kind"], "rs");
    assert_eq!(doc["fec"]["codewords"], codewords);
    assert_eq!(doc["fec"]["uncorrected_codewords"], 0);
    assert!(
        text.contains("fec: rs (Clause 108 RS-FEC): lock at bit 0"),
        "{text}"
    );
    // 7 symbols in every third codeword: still a pass, the counters say what was corrected
    // (in every codeword they would be 7 x 160 = 1120 symbol errors, more than hi_ser's 417
    // in 8192 codewords: a failure of its own).
    let hurt = d.join("hurt.bits");
    let hit: Vec<u64> = (0..codewords).step_by(3).collect();
    let faults: Vec<String> = hit.iter().map(|c| format!("symbols:{c}:7")).collect();
    rs_line(&frames_pcap, &hurt, &faults);
    let (code, doc, text) = check(&hurt);
    assert_eq!(code, 0, "{text}");
    let n = hit.len() as u64;
    assert_eq!(doc["fec"]["corrected_codewords"], n);
    assert_eq!(doc["fec"]["corrected_symbols"], 7 * n);
    let every: Vec<String> = (0..codewords).map(|c| format!("symbols:{c}:7")).collect();
    rs_line(&frames_pcap, &hurt, &every);
    let (code, _, text) = check(&hurt);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("FAIL fec: no hi_ser: hi_ser rose 1 time(s)"),
        "{text}"
    );
    rs_line(&frames_pcap, &hurt, &faults);
    let (code, _, text) = check(&hurt);
    assert_eq!(code, 0, "{text}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(&format!(
            r#"<property name="fec.corrected_symbols" value="{}"/>"#,
            7 * n
        )),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="no uncorrectable codewords" classname="baser.fec"/>"#),
        "{xml}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn check_fails_naming_exactly_the_expected_frames_of_an_8_symbol_codeword() {
    let d = dir("check-rs8");
    let (frames_pcap, _) = pcap(&d, 120);
    let clean = d.join("clean.bits");
    rs_line(&frames_pcap, &clean, &[]);
    let json = d.join("c.json");
    let junit = d.join("c.xml");
    let html = d.join("c.html");
    for cw in [4u64, 9, 17] {
        let line = d.join(format!("line{cw}.bits"));
        rs_line(&frames_pcap, &line, &[format!("symbols:{cw}:8")]);
        let (code, doc, text) = run(
            &[
                "check",
                "--frames",
                s(&frames_pcap),
                "--dut",
                s(&line),
                "--rate",
                "25g",
                "--fec",
                "rs",
                "--junit",
                s(&junit),
                "--html",
                s(&html),
            ],
            Some(&json),
        );
        assert_eq!(code, 1, "{text}");
        let u = &doc["fec"]["uncorrectable"][0];
        assert_eq!(u["index"], cw);
        let (first, end) = (
            u["first_block"].as_u64().unwrap(),
            u["first_block"].as_u64().unwrap() + u["blocks"].as_u64().unwrap(),
        );
        // The frames with a block from their /S/ to their /T/ in the codeword, from a clean
        // decode of the same frames.
        let want: Vec<u64> = placements(&clean, &["--rate", "25g", "--fec", "rs"])
            .into_iter()
            .filter(|&(_, b, lane, n)| b < end && (b * 8 + lane + 8 + n) / 8 >= first)
            .map(|(i, ..)| i)
            .collect();
        assert!(!want.is_empty());
        let named: Vec<u64> = u["expected_frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(named, want, "codeword {cw}: {text}");
        // Every other expected frame passed; the named ones did not.
        let failed: Vec<u64> = doc["frames"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["status"] != "matched" || f["class"] != "ok")
            .map(|f| f["expected_index"].as_u64().unwrap())
            .collect();
        assert!(
            failed.iter().all(|f| want.contains(f)),
            "{failed:?} vs {want:?}"
        );
        let list: Vec<String> = want.iter().map(u64::to_string).collect();
        let named_in = format!("expected frames hit: {}", list.join(", "));
        assert!(text.contains(&named_in), "{text}");
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(
            xml.contains(r#"<testcase name="no uncorrectable codewords" classname="baser.fec">"#)
                && xml.contains(&named_in),
            "{xml}"
        );
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains(r#"<section id="fec">"#), "{page}");
        assert!(page.contains(r#"id="fec-uncorrectable""#), "{page}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn check_with_fec_explains_a_b66_dut_is_the_pcs_side_and_checks_a_clause_74_line_off_its_boundary()
{
    let d = dir("check-b66");
    let (frames_pcap, _) = pcap(&d, 40);
    let (line, b66) = (d.join("line.bits"), d.join("pcs.b66"));
    let (code, _, text) = run(
        &[
            "encode",
            s(&frames_pcap),
            "--fec",
            "fc",
            "--bits",
            s(&line),
            "--b66",
            s(&b66),
            "--idle-blocks",
            "600",
        ],
        None,
    );
    assert_eq!(code, 0, "{text}");
    for extra in [&[][..], &["--blocks"][..]] {
        let mut args = vec![
            "check",
            "--frames",
            s(&frames_pcap),
            "--dut",
            s(&b66),
            "--fec",
            "fc",
        ];
        args.extend_from_slice(extra);
        let (code, _, text) = run(&args, None);
        assert_eq!(code, 2, "{text}");
        assert!(
            text.contains("pcs.b66: a .b66 stream is the PCS's blocks above the FEC"),
            "{text}"
        );
        assert!(!text.contains("panicked"), "{text}");
    }
    // The .b66 checks without --fec; the line with it, from 5 bits off the boundary, with
    // --blocks through the FEC.
    let (code, _, text) = run(
        &["check", "--frames", s(&frames_pcap), "--dut", s(&b66)],
        None,
    );
    assert_eq!(code, 0, "{text}");
    let bytes = std::fs::read(&line).unwrap();
    let mut shifted = vec![0u8; bytes.len() + 1];
    for bit in 0..bytes.len() * 8 {
        if bytes[bit / 8] >> (bit % 8) & 1 == 1 {
            shifted[(bit + 5) / 8] |= 1 << ((bit + 5) % 8);
        }
    }
    std::fs::write(&line, &shifted).unwrap();
    let json = d.join("c.json");
    let (code, doc, text) = run(
        &[
            "check",
            "--frames",
            s(&frames_pcap),
            "--dut",
            s(&line),
            "--fec",
            "fc",
            "--blocks",
        ],
        Some(&json),
    );
    assert_eq!(code, 0, "{text}");
    // Lock where n = 2 good FEC blocks follow the slips, on the boundary 5 bits in.
    assert_eq!(
        doc["fec"]["lock"]["acquired_at_bit"].as_u64().unwrap() % 2112,
        5
    );
    assert_eq!(doc["blocks"]["divergent"], 0);
    std::fs::remove_dir_all(&d).ok();
}

/// `bytes` as a line, its first `bits` bits cut off (a dump that starts there).
fn cut_line(bytes: &[u8], bits: usize) -> Vec<u8> {
    let n = bytes.len() * 8 - bits;
    let mut out = vec![0u8; n.div_ceil(8)];
    for i in 0..n {
        let b = i + bits;
        out[i / 8] |= (bytes[b / 8] >> (b % 8) & 1) << (i % 8);
    }
    out
}

/// A 25G line with `fec` made of 12 frames, cut `bits` bits in: the frames' pcap, the frames
/// and the cut dump.
fn cut_dump(d: &Path, fec: &str, bits: usize) -> (PathBuf, Vec<Vec<u8>>, PathBuf) {
    let (frames_pcap, frames) = pcap(d, 12);
    let line = d.join("line.bits");
    encode_line(&frames_pcap, &line, &["--rate", "25g", "--fec", fec]);
    let cut = d.join("cut.bits");
    std::fs::write(&cut, cut_line(&std::fs::read(&line).unwrap(), bits)).unwrap();
    (frames_pcap, frames, cut)
}

/// `check` of a 25G `fec` dump against its frames, with `extra` options.
fn check_dump(
    frames: &Path,
    dut: &Path,
    fec: &str,
    extra: &[&str],
    json: &Path,
) -> (i32, serde_json::Value, String) {
    let mut args = vec![
        "check",
        "--frames",
        s(frames),
        "--dut",
        s(dut),
        "--rate",
        "25g",
        "--fec",
        fec,
    ];
    args.extend_from_slice(extra);
    run(&args, Some(json))
}

#[test]
fn check_aligns_a_clause_74_line_cut_at_an_odd_bit_offline_and_a_receiver_view_loses_it() {
    let d = dir("fc-cut");
    let (frames_pcap, frames, cut) = cut_dump(&d, "fc", 1237);
    let line = d.join("line.bits");
    let json = d.join("c.json");
    let check = |extra: &[&str]| check_dump(&frames_pcap, &cut, "fc", extra, &json);
    // Offline (check's default): the boundary 875 bits in, every FEC block from there decoded.
    let (code, doc, text) = check(&["--blocks"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("lock at bit 875 (offline"), "{text}");
    let fec = &doc["fec"];
    assert_eq!(fec["lock"]["acquired_at_bit"], 875, "{fec}");
    assert_eq!(fec["lock"]["offline"], true, "{fec}");
    assert_eq!(fec["bits_before_lock"], 875, "{fec}");
    let bits = std::fs::metadata(&cut).unwrap().len() * 8;
    assert_eq!(fec["codewords"], (bits - 875) / 2112, "{fec}");
    assert_eq!(doc["summary"]["matched"], frames.len(), "{text}");
    assert_eq!(doc["blocks"]["divergent"], 0);
    // As a receiver sees it: slipping a bit a FEC block, it never locks on so short a line.
    let (code, doc, text) = check(&["--receiver-view"]);
    assert_eq!(code, 1, "{text}");
    assert!(doc["fec"]["lock"]["acquired_at_bit"].is_null(), "{text}");
    // decode --offline reads it as check does.
    let got = d.join("got.pcap");
    let (code, _, text) = run(
        &[
            "decode",
            s(&cut),
            "--rate",
            "25g",
            "--fec",
            "fc",
            "--offline",
            "--pcap",
            s(&got),
        ],
        None,
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(frames_of(&got), frames);
    // Less than the n = 2 FEC blocks the search needs: no lock, no panic.
    std::fs::write(&cut, cut_line(&std::fs::read(&line).unwrap()[..600], 1237)).unwrap();
    let (code, _, text) = check(&[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("NO LOCK"), "{text}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn check_reads_an_rs_line_cut_after_its_marker_offline_and_a_receiver_view_waits_for_the_next() {
    let d = dir("rs-cut");
    // Into the marker codeword (the one marker of the standard's 1024-codeword period).
    let (frames_pcap, frames, cut) = cut_dump(&d, "rs", 1237);
    let json = d.join("c.json");
    let check = |extra: &[&str]| check_dump(&frames_pcap, &cut, "rs", extra, &json);
    // Offline (check's default): the boundary 4043 bits in, every codeword from there.
    let (code, doc, text) = check(&[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("lock at bit 4043 (offline"), "{text}");
    let fec = &doc["fec"];
    assert_eq!(fec["lock"]["acquired_at_bit"], 4043, "{fec}");
    assert_eq!(fec["lock"]["offline"], true, "{fec}");
    assert_eq!(fec["markers"], 0, "{fec}");
    let bits = std::fs::metadata(&cut).unwrap().len() * 8;
    assert_eq!(fec["codewords"], (bits - 4043) / 5280, "{fec}");
    assert_eq!(doc["summary"]["matched"], frames.len(), "{text}");
    // As a receiver sees it: no marker for 1024 codewords, so no lock.
    let (code, doc, text) = check(&["--receiver-view"]);
    assert_eq!(code, 1, "{text}");
    assert!(doc["fec"]["lock"]["acquired_at_bit"].is_null(), "{text}");
    // decode --offline reads it as check does.
    let got = d.join("got.pcap");
    let (code, _, text) = run(
        &[
            "decode",
            s(&cut),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--offline",
            "--pcap",
            s(&got),
        ],
        None,
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(frames_of(&got), frames);
    std::fs::remove_dir_all(&d).ok();
}

/// The block lines of a `.b66` file (its comments left out).
fn block_lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn convert_round_trips_fec_lines_and_their_pcs_blocks_bit_exactly() {
    let d = dir("convert");
    let (frames_pcap, frames) = pcap(&d, 80);
    // (Both read offline: from the first whole FEC block or codeword.)
    for (fec, rate, skipped) in [("rs", "25g", 0usize), ("fc", "10g", 0)] {
        let (line, b66) = (d.join("line.bits"), d.join("pcs.b66"));
        let (code, _, text) = run(
            &[
                "encode",
                s(&frames_pcap),
                "--rate",
                rate,
                "--fec",
                fec,
                "--bits",
                s(&line),
                "--b66",
                s(&b66),
            ],
            None,
        );
        assert_eq!(code, 0, "{text}");
        // The PCS's blocks to the line: the encoder's line, bit for bit.
        let line2 = d.join("line2.bits");
        let (code, _, text) = run(
            &["convert", s(&b66), s(&line2), "--rate", rate, "--fec", fec],
            None,
        );
        assert_eq!(code, 0, "{text}");
        assert_eq!(
            std::fs::read(&line2).unwrap(),
            std::fs::read(&line).unwrap(),
            "{fec}"
        );
        // The line to the PCS's blocks: the encoder's blocks from lock on, every FEC block or
        // codeword accounted for.
        let got = d.join("got.b66");
        let (code, _, text) = run(
            &["convert", s(&line), s(&got), "--rate", rate, "--fec", fec],
            None,
        );
        assert_eq!(code, 0, "{text}");
        let want = block_lines(&b66);
        assert_eq!(block_lines(&got), want[skipped..], "{fec}");
        let bits = std::fs::metadata(&line).unwrap().len() * 8;
        let unit = if fec == "rs" { 5280 } else { 2112 };
        let decoded = (bits - skipped as u64 / 32 * 2112) / unit;
        assert!(
            text.contains(&format!(
                "the {bits} line bits are {} before lock (not converted), {decoded} ",
                skipped as u64 / 32 * 2112
            )) && text.contains(&format!(
                "and {} in no decoded",
                bits - skipped as u64 / 32 * 2112 - decoded * unit
            )),
            "{text}"
        );
    }
    // An RS-FEC line to a Clause 74 one (--out-fec), and its frames back from it.
    let (line, fc) = (d.join("rs.bits"), d.join("fc.bits"));
    rs_line(&frames_pcap, &line, &["symbols:6:8".to_string()]);
    let (code, _, text) = run(
        &[
            "convert",
            s(&line),
            s(&fc),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--out-fec",
            "fc",
        ],
        None,
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("(0 corrected, 1 uncorrectable: their blocks carry sync header 3"),
        "{text}"
    );
    assert!(text.contains("the last finished with"), "{text}");
    let got = d.join("got.pcap");
    let (code, _, text) = run(&["decode", s(&fc), "--fec", "fc", "--pcap", s(&got)], None);
    // Clause 74 keeps one sync bit per block: the marked headers become data or control
    // again, and the frames the codeword held come back corrupted, the others intact.
    assert_eq!(code, 1, "{text}");
    let back = frames_of(&got);
    let intact = back.iter().filter(|f| frames.contains(f)).count();
    assert!(
        intact < frames.len() && intact + 3 >= frames.len(),
        "{text}"
    );
    // No FEC on either side: refused, naming both files.
    let (code, _, text) = run(
        &[
            "convert",
            s(&d.join("pcs.b66")),
            s(&d.join("x.xgmii")),
            "--fec",
            "fc",
        ],
        None,
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("pcs.b66 nor") && text.contains("the PCS's blocks above the FEC"),
        "{text}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn coverage_with_fec_counts_lock_and_codewords_by_outcome_and_merges_the_two_fecs_apart() {
    let d = dir("coverage");
    let (frames_pcap, _) = pcap(&d, 60);
    let line = d.join("rs.bits");
    rs_line(
        &frames_pcap,
        &line,
        &["symbols:3:8".to_string(), "symbols:5:7".to_string()],
    );
    let json = d.join("cov.json");
    let (code, doc, text) = run(
        &["coverage", s(&line), "--rate", "25g", "--fec", "rs"],
        Some(&json),
    );
    assert_eq!(code, 0, "{text}");
    let group = |doc: &serde_json::Value, name: &str| -> Vec<(String, u64)> {
        doc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == name)
            .unwrap_or_else(|| panic!("no group {name}: {doc}"))["bins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["name"].as_str().unwrap().to_string(),
                    b["hits"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let rs = group(&doc, "fec_rs");
    let hits = |bins: &[(String, u64)], n: &str| bins.iter().find(|b| b.0 == n).unwrap().1;
    assert_eq!(hits(&rs, "lock acquired"), 1);
    assert_eq!(hits(&rs, "codeword corrected"), 1);
    assert_eq!(hits(&rs, "codeword uncorrectable"), 1);
    assert_eq!(hits(&rs, "marker codeword"), 1);
    assert_eq!(hits(&rs, "bypass correction (1.200.0)"), 0);
    // A Clause 74 run merged in: its own group; bypass correction hit by a run decoded so.
    let fc = d.join("fc.bits");
    let (code, _, text) = run(
        &["encode", s(&frames_pcap), "--fec", "fc", "--bits", s(&fc)],
        None,
    );
    assert_eq!(code, 0, "{text}");
    let fc_json = d.join("fc.json");
    let (code, _, text) = run(&["coverage", s(&fc), "--fec", "fc"], Some(&fc_json));
    assert_eq!(code, 0, "{text}");
    let bypass = d.join("bypass.json");
    let (code, _, text) = run(
        &[
            "coverage",
            s(&line),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--rs-bypass-correction",
        ],
        Some(&bypass),
    );
    assert_eq!(code, 0, "{text}");
    let (code, doc, text) = run(
        &["coverage", s(&json), s(&fc_json), s(&bypass)],
        Some(&d.join("all.json")),
    );
    assert_eq!(code, 0, "{text}");
    let rs = group(&doc, "fec_rs");
    assert!(hits(&rs, "bypass correction (1.200.0)") > 0);
    assert_eq!(
        hits(&rs, "codeword corrected"),
        1,
        "bypassed: detected, not corrected"
    );
    assert!(hits(&group(&doc, "fec_fc"), "FEC block clean") > 0);
    let (code, _, text) = run(
        &["coverage", s(&fc), "--fec", "fc", "--rs-bypass-correction"],
        None,
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("--rs-bypass-correction: an RS-FEC (Clause 108) setting, and the FEC is fc (add --fec rs)"),
        "{text}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn clause_74_error_indication_marks_an_uncorrectable_fec_blocks_headers_when_asked() {
    let d = dir("fc-ei");
    let (frames_pcap, _) = pcap(&d, 30);
    let line = d.join("line.bits");
    encode_line(
        &frames_pcap,
        &line,
        &["--fec", "fc", "--inject", "burst:20000:12"],
    );
    let json = d.join("d.json");
    let decode = |extra: &[&str]| {
        let mut args = vec!["decode", s(&line), "--fec", "fc"];
        args.extend_from_slice(extra);
        run(&args, Some(&json))
    };
    // Off (the default): the FEC block's blocks pass on as received, headers rebuilt valid.
    let (_, doc, text) = decode(&[]);
    assert_eq!(doc["fec"]["uncorrected_codewords"], 1, "{text}");
    assert_eq!(doc["pcs"]["invalid_headers"], 0, "{text}");
    // On: blocks 0, 8, 16 and 24 of it (U) reach the PCS with sync header 3.
    let (code, doc, text) = decode(&["--fc-error-indication"]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(doc["pcs"]["invalid_headers"], 4, "{text}");
    // Refused for the other FEC, naming the flag.
    let (code, _, text) = run(
        &[
            "decode",
            s(&line),
            "--rate",
            "25g",
            "--fec",
            "rs",
            "--fc-error-indication",
        ],
        None,
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("--fc-error-indication: a Clause 74 BASE-R FEC setting, and the FEC is rs (add --fec fc)"),
        "{text}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn gen_fec_plans_counters_decode_finds_and_check_judges_by_them() {
    let d = dir("gen");
    for (fec, rate, seed) in [
        ("rs", "25g", 7u64),
        ("rs", "25g", 21),
        ("fc", "10g", 7),
        ("fc", "25g", 30),
    ] {
        let out = d.join(format!("{fec}{seed}"));
        let (code, _, text) = run(
            &[
                "gen",
                "--seed",
                &seed.to_string(),
                "--out",
                s(&out),
                "--items",
                "200",
                "--rate",
                rate,
                "--fec",
                fec,
                "--fec-errors",
                "6",
                "--fec-uncorrectable",
                "1",
            ],
            None,
        );
        assert_eq!(code, 0, "{text}");
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("expected.json")).unwrap())
                .unwrap();
        let e = &expected["fec"];
        assert_eq!(e["faults"].as_array().unwrap().len(), 7, "{e}");
        // decode finds the counters the plan gives.
        let line = out.join("stream.bits");
        let (_, doc, text) = run(
            &["decode", s(&line), "--rate", rate, "--fec", fec],
            Some(&out.join("d.json")),
        );
        let f = &doc["fec"];
        for k in [
            "corrected_codewords",
            "corrected_bits",
            "uncorrected_codewords",
        ] {
            assert_eq!(f[k], e[k], "{fec} seed {seed} {k}: {text}");
        }
        if fec == "rs" {
            assert_eq!(f["corrected_symbols"], e["corrected_symbols"], "{text}");
            assert_eq!(f["codewords"], e["codewords_on_line"], "{text}");
        }
        assert_eq!(
            f["uncorrectable"][0]["bit"], e["uncorrectable"][0]["bit"],
            "{text}"
        );
        // check judges by them: every outcome met, every FEC case passed, and the frames the
        // plan says the uncorrectable one hit are those check names.
        let junit = out.join("c.xml");
        let (_, doc, text) = run(
            &[
                "check",
                "--frames",
                s(&out.join("frames.pcap")),
                "--dut",
                s(&line),
                "--rate",
                rate,
                "--fec",
                fec,
                "--outcomes",
                s(&out.join("expected.json")),
                "--junit",
                s(&junit),
            ],
            Some(&out.join("c.json")),
        );
        let outcomes = doc["outcomes"].as_array().unwrap();
        assert!(outcomes.iter().all(|o| o["met"] == true), "{text}");
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(
            xml.contains(&format!(
                r#"<testcase name="uncorrectable {}s as planned" classname="baser.fec"/>"#,
                if fec == "rs" { "codeword" } else { "FEC block" }
            )) && xml
                .contains(r#"<testcase name="corrections as planned" classname="baser.fec"/>"#),
            "{xml}"
        );
        assert_eq!(
            doc["fec"]["uncorrectable"][0]["expected_frames"], e["uncorrectable"][0]["frames"],
            "{fec} seed {seed}"
        );
        // Above the FEC (a receiver's XGMII: the model's, by convert), the same outcomes hold
        // and the FEC counters are left for the receiver's registers.
        let rx = out.join("rx.xgmii");
        let (code, _, text) = run(
            &["convert", s(&line), s(&rx), "--rate", rate, "--fec", fec],
            None,
        );
        assert_eq!(code, 0, "{text}");
        let (_, doc, text) = run(
            &[
                "check",
                "--frames",
                s(&out.join("frames.pcap")),
                "--dut",
                s(&rx),
                "--rate",
                rate,
                "--outcomes",
                s(&out.join("expected.json")),
            ],
            Some(&out.join("b.json")),
        );
        let outcomes = doc["outcomes"].as_array().unwrap();
        assert!(
            !outcomes.is_empty() && outcomes.iter().all(|o| o["met"] == true),
            "{text}"
        );
        assert!(doc.get("fec").is_none(), "{doc}");
        // A check given another stimulus's counters fails them, naming both.
        let mut other = expected.clone();
        other["fec"]["corrected_codewords"] = serde_json::json!(99);
        let other_path = out.join("other.json");
        std::fs::write(&other_path, other.to_string()).unwrap();
        let (code, _, text) = run(
            &[
                "check",
                "--frames",
                s(&out.join("frames.pcap")),
                "--dut",
                s(&line),
                "--rate",
                rate,
                "--fec",
                fec,
                "--outcomes",
                s(&other_path),
            ],
            None,
        );
        assert_eq!(code, 1, "{text}");
        assert!(
            text.contains("FAIL fec: corrections as planned: corrected 6 "),
            "{text}"
        );
    }
    let (code, _, text) = run(
        &[
            "gen",
            "--seed",
            "1",
            "--out",
            s(&d.join("x")),
            "--rate",
            "25g",
            "--fec",
            "fc",
            "--test-pattern",
            "prbs31",
        ],
        None,
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--fec with --test-pattern"), "{text}");
    std::fs::remove_dir_all(&d).ok();
}

/// `check --outcomes` of a `gen --fec` stimulus: every outcome met, both FEC cases passed,
/// each uncorrectable unit naming the frames the plan says; the check's JSON report.
fn check_by_plan(
    out: &Path,
    rate: &str,
    fec: &str,
    plan: &Path,
) -> (i32, serde_json::Value, String) {
    run(
        &[
            "check",
            "--frames",
            s(&out.join("frames.pcap")),
            "--dut",
            s(&out.join("stream.bits")),
            "--rate",
            rate,
            "--fec",
            fec,
            "--outcomes",
            s(plan),
            "-v",
        ],
        Some(&out.join("c.json")),
    )
}

#[test]
fn gen_fec_goes_with_hostile_cover_a_bit_offset_and_several_uncorrectable_codewords() {
    let d = dir("gen-more");
    let unit = |fec: &str| if fec == "rs" { "codeword" } else { "FEC block" };
    for (fec, rate, extra, uncorrectable) in [
        ("rs", "25g", &["--hostile"][..], 1),
        ("fc", "25g", &["--hostile"][..], 2),
        ("rs", "25g", &["--cover"][..], 1),
        ("fc", "10g", &["--cover"][..], 1),
        ("rs", "25g", &["--bit-offset", "37"][..], 1),
        ("fc", "10g", &["--bit-offset", "37"][..], 1),
        ("rs", "25g", &[][..], 3),
    ] {
        let out = d.join(format!("{fec}-{}-{uncorrectable}", extra.join("")));
        let n = uncorrectable.to_string();
        let mut args = vec![
            "gen",
            "--seed",
            "7",
            "--out",
            s(&out),
            "--items",
            "300",
            "--rate",
            rate,
            "--fec",
            fec,
            "--fec-errors",
            "3",
            "--fec-uncorrectable",
            &n,
        ];
        args.extend_from_slice(extra);
        let (code, _, text) = run(&args, None);
        assert_eq!(code, 0, "{text}");
        let plan = out.join("expected.json");
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
        let e = &expected["fec"];
        assert_eq!(e["uncorrected_codewords"], uncorrectable, "{e}");
        let (_, doc, text) = check_by_plan(&out, rate, fec, &plan);
        let outcomes = doc["outcomes"].as_array().unwrap();
        assert!(
            outcomes.iter().all(|o| o["met"] == true),
            "{extra:?} {text}"
        );
        assert!(
            text.contains(&format!(
                "PASS fec: uncorrectable {}s as planned",
                unit(fec)
            )) && text.contains("PASS fec: corrections as planned"),
            "{extra:?} {text}"
        );
        let got = doc["fec"]["uncorrectable"].as_array().unwrap();
        assert_eq!(got.len(), uncorrectable, "{text}");
        for (g, w) in got.iter().zip(e["uncorrectable"].as_array().unwrap()) {
            assert_eq!(g["bit"], w["bit"], "{extra:?}");
            // (With hi_ber up the frames after it are missing too, and check, which places
            // a missing frame between the received ones around it, names them all.)
            let (g, w) = (
                g["expected_frames"].as_array().unwrap(),
                w["frames"].as_array().unwrap(),
            );
            if uncorrectable > 1 && fec == "rs" {
                assert!(w.iter().all(|f| g.contains(f)), "{g:?} {w:?}");
            } else {
                assert_eq!(g, w, "{extra:?}");
            }
        }
        if extra == ["--bit-offset", "37"] {
            assert_eq!(doc["fec"]["lock"]["acquired_at_bit"], 37, "{text}");
        }
        // A plan one bit off, or a hit frame said to arrive intact, fails.
        let mut off = expected.clone();
        off["fec"]["uncorrectable"][0]["bit"] =
            serde_json::json!(e["uncorrectable"][0]["bit"].as_u64().unwrap() + 1);
        let off_path = out.join("off.json");
        std::fs::write(&off_path, off.to_string()).unwrap();
        let (code, _, text) = check_by_plan(&out, rate, fec, &off_path);
        assert_eq!(code, 1, "{text}");
        assert!(
            text.contains(&format!(
                "FAIL fec: uncorrectable {}s as planned",
                unit(fec)
            )),
            "{text}"
        );
        // (The first uncorrectable unit that held a frame; one in idles hits none.)
        let Some(hit) = e["uncorrectable"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|u| u["frames"][0].as_u64())
        else {
            continue;
        };
        let mut intact = expected.clone();
        intact["frames"][hit as usize]["outcome"] = serde_json::json!("ok");
        std::fs::write(&off_path, intact.to_string()).unwrap();
        let (code, doc, text) = check_by_plan(&out, rate, fec, &off_path);
        assert_eq!(code, 1, "{text}");
        let unmet = doc["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["met"] == false);
        assert!(
            unmet
                || !text.contains(&format!("frame {hit} ("))
                || text.contains(&format!("FAIL frames: frame {hit} (")),
            "{extra:?} {text}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}
