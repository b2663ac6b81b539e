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
