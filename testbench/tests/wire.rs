//! `baser wire` and `baser reflect` for real, on veth pairs between two network namespaces
//! named `baser-<test>-<pid>-{w,d}` (wire side, DUT side), removed afterwards even on failure.
//! Frames go nowhere else. Tests that need root print SKIP and return when not root.
//!
//! Fault accounting is exact: the reflector numbers frames from 1 and "every N" hits frames
//! N, 2N, ...; the verdict must name exactly those positions (N-1, 2N-1, ...) in the class of
//! the fault and nothing else.

use baser_files::pcap::FrameWriter;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

const BASER: &str = env!("CARGO_BIN_EXE_baser");

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn sh(args: &[&str]) {
    let o = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A fresh network namespace `name` (one left by an earlier run is deleted first), with IPv6
/// on or off (off: no router solicitations or other chatter on the test's links).
fn netns(name: &str, ipv6: bool) {
    let _ = Command::new("ip").args(["netns", "del", name]).output();
    sh(&["ip", "netns", "add", name]);
    let v = if ipv6 { "0" } else { "1" };
    for k in ["all", "default"] {
        sh(&[
            "ip",
            "netns",
            "exec",
            name,
            "sysctl",
            "-qw",
            &format!("net.ipv6.conf.{k}.disable_ipv6={v}"),
        ]);
    }
}

/// Two namespaces joined by a veth pair; dropped: namespaces (and so the pair) deleted.
struct Link {
    ns_w: String,
    ns_d: String,
    if_w: String,
    if_d: String,
    dir: PathBuf,
}

impl Link {
    /// None (after printing SKIP) when not root.
    fn new(test: &str, code: &str, ipv6: bool, mtu: u32) -> Option<Self> {
        if !is_root() {
            println!("SKIP {test}: needs root for network namespaces and raw sockets");
            return None;
        }
        let pid = std::process::id() % 100_000;
        let l = Self {
            ns_w: format!("baser-{test}-{pid}-w"),
            ns_d: format!("baser-{test}-{pid}-d"),
            if_w: format!("bsr{pid}{code}w"),
            if_d: format!("bsr{pid}{code}d"),
            dir: std::env::temp_dir().join(format!("baser-wire-{test}-{pid}")),
        };
        assert!(l.if_w.len() <= 15);
        std::fs::create_dir_all(&l.dir).unwrap();
        for ns in [&l.ns_w, &l.ns_d] {
            netns(ns, ipv6);
        }
        sh(&[
            "ip", "link", "add", &l.if_w, "netns", &l.ns_w, "type", "veth", "peer", "name",
            &l.if_d, "netns", &l.ns_d,
        ]);
        for (ns, i) in [(&l.ns_w, &l.if_w), (&l.ns_d, &l.if_d)] {
            sh(&[
                "ip",
                "-n",
                ns,
                "link",
                "set",
                i,
                "mtu",
                &mtu.to_string(),
                "up",
            ]);
        }
        Some(l)
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_string_lossy().into_owned()
    }

    /// Writes a capture and returns its path.
    fn pcap(&self, name: &str, frames: &[Vec<u8>]) -> String {
        let p = self.path(name);
        let mut w = FrameWriter::new(std::fs::File::create(&p).unwrap()).unwrap();
        for (i, f) in frames.iter().enumerate() {
            w.write(Duration::from_micros(i as u64), f).unwrap();
        }
        w.finish().unwrap();
        p
    }

    /// Starts `baser reflect` on the DUT side and waits until it is ready.
    fn reflect(&self, args: &[&str]) -> Child {
        let mut c = Command::new("ip")
            .args([
                "netns", "exec", &self.ns_d, BASER, "reflect", "--iface", &self.if_d,
            ])
            .args(["--duration", "60"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let out = c.stdout.as_mut().unwrap();
        let mut r = BufReader::new(out);
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap() == 0 {
                panic!("reflect exited before it was ready");
            }
            if line.contains("reflecting on") {
                break;
            }
        }
        c
    }

    fn wire(&self, args: &[&str]) -> Output {
        Command::new("ip")
            .args([
                "netns", "exec", &self.ns_w, BASER, "wire", "--tx", &self.if_w,
            ])
            .args(args)
            .output()
            .unwrap()
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        for ns in [&self.ns_w, &self.ns_d] {
            let _ = Command::new("ip").args(["netns", "del", ns]).output();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Stops a reflector with SIGINT and returns its summary line.
fn stop(c: Child) -> String {
    let _ = Command::new("kill")
        .args(["-INT", &c.id().to_string()])
        .output();
    let o = c.wait_with_output().unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Distinct test frames: DA 02:..:02, SA 02:..:01, EtherType 0x88b5 (local experimental),
/// the index at octets 14..18, a pattern after it.
fn frames(n: usize, len: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut f = vec![0u8; len];
            f[..6].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
            f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
            f[12..14].copy_from_slice(&[0x88, 0xb5]);
            for (j, b) in f.iter_mut().enumerate().skip(18) {
                *b = (i * 31 + j * 7) as u8;
            }
            f[14..18].copy_from_slice(&(i as u32).to_be_bytes());
            f
        })
        .collect()
}

fn json(path: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn counts(j: &serde_json::Value) -> [u64; 7] {
    let c = &j["counts"];
    [
        "expected",
        "matched",
        "missing",
        "corrupted",
        "reordered",
        "duplicated",
        "unexpected",
    ]
    .map(|k| c[k].as_u64().unwrap())
}

/// Positions of the failures of `class`.
fn positions(j: &serde_json::Value, class: &str) -> Vec<u64> {
    j["failures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["class"] == class)
        .map(|f| f["position"].as_u64().unwrap())
        .collect()
}

fn hits(n: u64, every: u64) -> Vec<u64> {
    (1..=n).filter(|k| k % every == 0).map(|k| k - 1).collect()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs one fault against 300 distinct 100-octet frames; returns the JSON report.
fn fault_run(
    test: &str,
    code: &str,
    fault: &[&str],
) -> Option<(serde_json::Value, Output, String)> {
    let l = Link::new(test, code, false, 1500)?;
    let pcap = l.pcap("f.pcap", &frames(300, 100));
    let r = l.reflect(fault);
    let js = l.path("r.json");
    let o = l.wire(&[&pcap, "--loopback", "--pps", "20000", "--json", &js]);
    let summary = stop(r);
    Some((json(&js), o, summary))
}

#[test]
fn without_faults_every_frame_is_matched_vlan_tags_and_runts_included() {
    let Some(l) = Link::new("clean", "cl", false, 1500) else {
        return;
    };
    let mut f = frames(500, 128);
    // A VLAN-tagged frame (the kernel strips the tag on receive; baser puts it back) and a
    // 20-octet runt (matches its zero-padded form).
    f[10][12..18].copy_from_slice(&[0x81, 0x00, 0x20, 0x07, 0x88, 0xb5]);
    f[20].truncate(20);
    let pcap = l.pcap("f.pcap", &f);
    let r = l.reflect(&[]);
    let (js, ju) = (l.path("r.json"), l.path("r.xml"));
    let o = l.wire(&[&pcap, "--json", &js, "--junit", &ju]);
    let summary = stop(r);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&js);
    assert_eq!(counts(&j), [500, 500, 0, 0, 0, 0, 0], "{}", text(&o));
    assert_eq!(j["sent"], 500);
    // A veth is a virtual device: the automatic transmit path is sendmmsg.
    assert_eq!(j["tx"]["virtual"], true);
    assert_eq!(j["tx_path"], "sendmmsg");
    assert_eq!(j["capture_dropped"], 0);
    assert_eq!(j["capture_stopped"], "all expected frames seen");
    // At top speed one frame in 64 is stamped by the kernel when sent (socket error queue)
    // and measured; received frames are stamped in the ring.
    assert_eq!(j["latency"]["frames"], 8, "{j}");
    assert!(j["latency"]["min_us"].as_f64().unwrap() >= 0.0);
    assert_eq!(j["latency"]["tx_clock"], "software (1 frame in 64)", "{j}");
    assert_eq!(j["latency"]["rx_clock"], "software");
    assert!(j["warnings"].as_array().unwrap().is_empty(), "{j}");
    assert!(summary.contains("received 500, sent 500"), "{summary}");
    let xml = std::fs::read_to_string(&ju).unwrap();
    assert!(
        xml.contains(r#"tests="505" skipped="0" errors="0" failures="0""#),
        "{xml}"
    );
    assert!(text(&o).contains("PASS"));
}

#[test]
fn every_transmit_path_delivers_every_frame_and_pinning_is_checked() {
    let Some(l) = Link::new("paths", "pa", false, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(300, 100));
    let r = l.reflect(&[]);
    for path in ["ring", "sendmmsg", "send"] {
        let js = l.path(&format!("{path}.json"));
        let o = l.wire(&[&pcap, "--tx-path", path, "--pin", "0,0", "--json", &js]);
        assert_eq!(o.status.code(), Some(0), "{path}: {}", text(&o));
        let j = json(&js);
        assert_eq!(j["tx_path"], path);
        assert_eq!(
            counts(&j),
            [300, 300, 0, 0, 0, 0, 0],
            "{path}: {}",
            text(&o)
        );
        // Kernel transmit stamps where frames leave through a socket; a ring's slots have
        // none, which the report says.
        let want = match path {
            "ring" => "user (queued)",
            "sendmmsg" => "software (1 frame in 64)", // top speed: one frame in 64 stamped
            _ => "software",
        };
        assert_eq!(j["latency"]["tx_clock"], want, "{path}: {j}");
        let warned = j["warnings"]
            .to_string()
            .contains("no per-frame transmit timestamps");
        assert_eq!(warned, path == "ring", "{path}: {j}");
    }
    // A veth has no hardware timestamping: asked for, it is refused by name and the run goes
    // on with the kernel's stamps.
    let js = l.path("hw.json");
    let o = l.wire(&[&pcap, "--hw-timestamps", "--json", &js]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&js);
    assert!(
        j["warnings"]
            .to_string()
            .contains("does not timestamp frames (SIOCSHWTSTAMP"),
        "{j}"
    );
    assert_eq!(j["latency"]["tx_clock"], "software (1 frame in 64)");
    assert_eq!(counts(&j)[1], 300);
    // A CPU that does not exist is refused by name, before anything is sent.
    let js = l.path("bad.json");
    let o = l.wire(&[&pcap, "--pin", "0,4095", "--json", &js]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--pin 0,4095: the kernel refused CPU 4095"),
        "{}",
        text(&o)
    );
    let summary = stop(r);
    assert!(summary.contains("received 1200, sent 1200"), "{summary}");
}

#[test]
fn dropped_frames_are_exactly_the_missing_ones() {
    let Some((j, o, s)) = fault_run("drop", "dr", &["--drop-every", "10"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(counts(&j), [300, 270, 30, 0, 0, 0, 0], "{}", text(&o));
    assert_eq!(positions(&j, "missing"), hits(300, 10));
    assert!(s.contains("dropped 30"), "{s}");
    // Dropped frames are never seen: the capture waits them out.
    assert_eq!(j["capture_stopped"], "timeout");
}

#[test]
fn corrupted_frames_are_exactly_the_flipped_ones_with_their_octet() {
    let Some((j, o, _)) = fault_run("corrupt", "co", &["--corrupt-every", "25"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(counts(&j), [300, 288, 0, 12, 0, 0, 0], "{}", text(&o));
    assert_eq!(positions(&j, "corrupted"), hits(300, 25));
    let f = frames(300, 100);
    for v in j["failures"].as_array().unwrap() {
        let p = v["position"].as_u64().unwrap() as usize;
        let d = &v["first_difference"];
        assert_eq!(d["offset"], 50);
        assert_eq!(d["expected"], f[p][50]);
        assert_eq!(d["actual"], f[p][50] ^ 1);
    }
    assert!(text(&o).contains("corrupted: first difference at octet 50"));
}

#[test]
fn duplicated_frames_are_exactly_the_repeated_ones() {
    let Some((j, o, _)) = fault_run("dup", "du", &["--duplicate-every", "20"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(counts(&j), [300, 300, 0, 0, 0, 15, 0], "{}", text(&o));
    let d: Vec<u64> = j["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["position"].as_u64().unwrap())
        .collect();
    assert_eq!(d, hits(300, 20));
}

#[test]
fn reordered_frames_are_exactly_the_held_back_ones_and_unordered_mode_accepts_them() {
    let Some(l) = Link::new("reorder", "ro", false, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(300, 100));
    let js = l.path("r.json");
    let r = l.reflect(&["--reorder-every", "7"]);
    let o = l.wire(&[&pcap, "--pps", "20000", "--json", &js]);
    let s = stop(r);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&js);
    assert_eq!(counts(&j), [300, 258, 0, 0, 42, 0, 0], "{}\n{s}", text(&o));
    assert_eq!(positions(&j, "reordered"), hits(300, 7));
    let r = l.reflect(&["--reorder-every", "7"]);
    let o = l.wire(&[&pcap, "--pps", "20000", "--unordered", "--json", &js]);
    stop(r);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(counts(&json(&js)), [300, 300, 0, 0, 0, 0, 0]);
}

#[test]
fn duplicates_do_not_end_the_capture_early_and_held_frames_are_exactly_the_reordered_ones() {
    // Every 2nd frame sent twice, every 10th held back while the others go on. The capture
    // must wait for the held frames (not stop once 200 frames have arrived, duplicates
    // included) and say why it stopped. Held 300 ms, the held frames come after a quiet
    // spell longer than the capture's 50 ms grace: a count of all frames received would
    // have ended the run without them.
    let Some(l) = Link::new("hold", "ho", false, 1500) else {
        return;
    };
    let one = l.pcap("one.pcap", &frames(1, 100));
    let js = l.path("r.json");
    for hold_ms in ["100", "300"] {
        let r = l.reflect(&[
            "--duplicate-every",
            "2",
            "--hold-every",
            "10",
            "--hold-ms",
            hold_ms,
        ]);
        let o = l.wire(&[
            &one,
            "--count",
            "200",
            "--tag-offset",
            "18",
            "--pps",
            "2000",
            "--timeout-ms",
            "6000",
            "--json",
            &js,
        ]);
        let s = stop(r);
        let out = format!("hold {hold_ms} ms: {}\n{s}", text(&o));
        assert_eq!(o.status.code(), Some(1), "{out}");
        let j = json(&js);
        // A held frame is reordered when a frame of a later position came before it: all but
        // the last one (position 199: nothing is sent after it).
        let held = hits(200, 10);
        let reordered: Vec<u64> = held.iter().copied().filter(|&p| p != 199).collect();
        let dups = hits(200, 2).len() as u64;
        let c = counts(&j);
        assert_eq!(c[1] + c[4], 200, "{out}");
        assert_eq!(
            c,
            [
                200,
                200 - reordered.len() as u64,
                0,
                0,
                reordered.len() as u64,
                dups,
                0
            ],
            "{out}"
        );
        assert_eq!(positions(&j, "reordered"), reordered, "{out}");
        let mut d: Vec<u64> = j["duplicates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["position"].as_u64().unwrap())
            .collect();
        d.sort_unstable();
        assert_eq!(d, hits(200, 2), "{out}");
        assert_eq!(j["capture_stopped"], "all expected frames seen", "{out}");
        assert!(
            out.contains("capture stopped: all expected frames seen"),
            "{out}"
        );
        assert!(s.contains("duplicated 100") && s.contains("held 20"), "{s}");
    }
}

#[test]
fn corrupted_frames_held_far_out_of_place_are_corrupted_not_missing() {
    // Content mode: every 5th frame corrupted, every 7th held back 50 ms (about 100 frames
    // later at 2000 frames/s); frames 35, 70, ... are both. A corrupted frame is paired with
    // its expected frame wherever it arrives; it never counts as seen, so the capture ends at
    // the timeout.
    let Some(l) = Link::new("correord", "cr", false, 1500) else {
        return;
    };
    let f = frames(300, 100);
    let pcap = l.pcap("f.pcap", &f);
    let js = l.path("r.json");
    let r = l.reflect(&[
        "--corrupt-every",
        "5",
        "--hold-every",
        "7",
        "--hold-ms",
        "50",
    ]);
    let o = l.wire(&[&pcap, "--pps", "2000", "--json", &js]);
    let s = stop(r);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&js);
    let corrupted = hits(300, 5);
    // Held and intact: reordered (frames of later positions overtook them).
    let reordered: Vec<u64> = hits(300, 7)
        .into_iter()
        .filter(|p| !corrupted.contains(p))
        .collect();
    let matched = 300 - corrupted.len() - reordered.len();
    assert_eq!(
        counts(&j),
        [
            300,
            matched as u64,
            0,
            corrupted.len() as u64,
            reordered.len() as u64,
            0,
            0
        ],
        "{}\n{s}",
        text(&o)
    );
    assert_eq!(positions(&j, "corrupted"), corrupted);
    assert_eq!(positions(&j, "reordered"), reordered);
    for v in j["failures"].as_array().unwrap() {
        if v["class"] == "corrupted" {
            let p = v["position"].as_u64().unwrap() as usize;
            let d = &v["first_difference"];
            assert_eq!(d["offset"], 50);
            assert_eq!(d["actual"], f[p][50] ^ 1);
        }
    }
    // The held ones arrived after frames of later positions (the others are no later than
    // their own place, held frames before them still on their way).
    let late: Vec<u64> = j["failures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["class"] == "corrupted")
        .map(|v| {
            (
                v["position"].as_u64().unwrap(),
                v["received_index"].as_u64().unwrap(),
            )
        })
        .filter(|&(p, i)| i > p)
        .map(|(p, _)| p)
        .collect();
    assert_eq!(late, hits(300, 35), "{}", text(&o));
    assert!(s.contains("corrupted 60") && s.contains("held 42"), "{s}");
    assert_eq!(j["capture_stopped"], "timeout");
}

#[test]
fn delayed_frames_match_and_the_latency_shows_the_delay() {
    let Some(l) = Link::new("delay", "de", false, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(100, 100));
    let (js, svg) = (l.path("r.json"), l.path("lat.svg"));
    let r = l.reflect(&["--delay-us", "3000"]);
    let o = l.wire(&[&pcap, "--pps", "5000", "--json", &js, "--latency-svg", &svg]);
    stop(r);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&js);
    assert_eq!(counts(&j)[1], 100);
    // Latency is reported, not timed: only the sanity bound that it includes the delay.
    let lat = &j["latency"];
    assert!(lat["min_us"].as_f64().unwrap() >= 3000.0, "{j}");
    // Paced: every frame stamped by the kernel when sent.
    assert_eq!(lat["tx_clock"], "software");
    assert_eq!(lat["frames"], 100);
    // The histogram holds every frame, from a bin at or below the minimum.
    let h = &lat["histogram"];
    let bins: Vec<u64> = h["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(bins.iter().sum::<u64>(), 100, "{h}");
    assert!(bins.len() <= 60 && bins[0] > 0 && *bins.last().unwrap() > 0);
    let (start, width) = (
        h["start_us"].as_f64().unwrap(),
        h["bin_us"].as_f64().unwrap(),
    );
    assert!(start <= lat["min_us"].as_f64().unwrap());
    assert!(start + width * bins.len() as f64 >= lat["max_us"].as_f64().unwrap());
    // ... and the picture draws one bar per non-empty bin, with the median marked.
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"), "{}", &picture[..80]);
    let bars = picture.matches(r#"class="bar""#).count();
    assert_eq!(bars, bins.iter().filter(|&&c| c > 0).count());
    assert!(picture.contains("median") && picture.contains("latency of 100 frames"));
}

#[test]
fn tag_mode_tells_identical_frames_apart() {
    let Some(l) = Link::new("tag", "tg", false, 1500) else {
        return;
    };
    let one = l.pcap("one.pcap", &frames(1, 80));
    let js = l.path("r.json");
    let r = l.reflect(&["--drop-every", "50"]);
    let o = l.wire(&[
        &one,
        "--count",
        "400",
        "--tag-offset",
        "40",
        "--pps",
        "20000",
        "--json",
        &js,
    ]);
    stop(r);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&js);
    assert_eq!(counts(&j), [400, 392, 8, 0, 0, 0, 0], "{}", text(&o));
    assert_eq!(positions(&j, "missing"), hits(400, 50));
}

#[test]
fn unrelated_traffic_is_unexpected_and_does_not_break_matching() {
    // IPv6 on: the kernels' own neighbour discovery and MLD may add more unexpected frames.
    let Some(l) = Link::new("unrel", "un", true, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(500, 86));
    // A neighbour solicitation-like frame of the same length as the test frames.
    let mut ns = vec![0u8; 86];
    ns[..6].copy_from_slice(&[0x33, 0x33, 0xff, 0, 0, 1]);
    ns[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 9]);
    ns[12..14].copy_from_slice(&[0x86, 0xdd]);
    ns[14] = 0x60;
    let inject = l.pcap("nd.pcap", &[ns]);
    let js = l.path("r.json");
    let r = l.reflect(&["--inject", &inject, "--inject-every", "50"]);
    let o = l.wire(&[&pcap, "--pps", "20000", "--json", &js]);
    let s = stop(r);
    let j = json(&js);
    let c = counts(&j);
    assert_eq!(&c[..6], &[500, 500, 0, 0, 0, 0], "{}", text(&o));
    assert!(c[6] >= 10, "{}", text(&o));
    let injected = j["unexpected"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| {
            u["head"]
                .as_str()
                .unwrap()
                .starts_with("3333ff000001020000000009")
        })
        .count();
    assert_eq!(injected, 10, "{s}");
    assert!(s.contains("injected 10"), "{s}");
    // Unexpected frames are reported; they fail the run only with --strict.
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("unexpected frame"), "{}", text(&o));
}

#[test]
fn jumbo_frames_round_trip_at_mtu_9000_and_oversized_frames_are_refused_clearly() {
    let Some(l) = Link::new("jumbo", "jb", false, 9000) else {
        return;
    };
    let mut f = frames(40, 9014);
    for (i, x) in f.iter_mut().enumerate() {
        x.truncate(1000 + i * 200);
    }
    let pcap = l.pcap("f.pcap", &f);
    let js = l.path("r.json");
    let r = l.reflect(&[]);
    let o = l.wire(&[&pcap, "--json", &js]);
    stop(r);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(counts(&json(&js)), [40, 40, 0, 0, 0, 0, 0]);
    let big = l.pcap("big.pcap", &frames(2, 9015));
    let o = l.wire(&[&big]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("record 0 is 9015 octets: bsr")
            && text(&o).contains("MTU 9000 allows at most 9014 octets"),
        "{}",
        text(&o)
    );
}

#[test]
fn refusals_default_route_global_address_missing_interface_no_capability() {
    let Some(l) = Link::new("refuse", "rf", false, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(3, 64));
    // Missing interface.
    let o = Command::new("ip")
        .args([
            "netns",
            "exec",
            &l.ns_w,
            BASER,
            "wire",
            "--tx",
            "bsr-nothere",
            &pcap,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("no interface named \"bsr-nothere\""),
        "{}",
        text(&o)
    );
    // No capability: CAP_NET_RAW dropped from the bounding and inheritable sets.
    let o = Command::new("ip")
        .args([
            "netns",
            "exec",
            &l.ns_w,
            "setpriv",
            "--inh-caps=-net_raw,-net_admin",
        ])
        .args([
            "--bounding-set=-net_raw,-net_admin",
            BASER,
            "wire",
            "--tx",
            &l.if_w,
            &pcap,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("raw sockets need CAP_NET_RAW"),
        "{}",
        text(&o)
    );
    // A global address.
    sh(&[
        "ip",
        "-n",
        &l.ns_w,
        "addr",
        "add",
        "192.0.2.1/24",
        "dev",
        &l.if_w,
    ]);
    let o = l.wire(&[&pcap]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("has a global address (192.0.2.1)"),
        "{}",
        text(&o)
    );
    // The default route.
    sh(&[
        "ip",
        "-n",
        &l.ns_w,
        "route",
        "add",
        "default",
        "via",
        "192.0.2.2",
    ]);
    let o = l.wire(&[&pcap]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("carries the default route (IPv4 0.0.0.0/0)"),
        "{}",
        text(&o)
    );
    // The reflector refuses too.
    let o = Command::new("ip")
        .args([
            "netns",
            "exec",
            &l.ns_w,
            BASER,
            "reflect",
            "--iface",
            &l.if_w,
            "--duration",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("carries the default route"),
        "{}",
        text(&o)
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_still_reports() {
    let Some(l) = Link::new("intr", "ic", false, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(100, 100));
    let js = l.path("r.json");
    let r = l.reflect(&[]);
    let c = Command::new("ip")
        .args([
            "netns", "exec", &l.ns_w, BASER, "wire", "--tx", &l.if_w, &pcap,
        ])
        .args(["--loop", "100", "--pps", "500", "--json", &js])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-INT", &c.id().to_string()])
        .output();
    let o = c.wait_with_output().unwrap();
    stop(r);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("(interrupted)"), "{out}");
    let j = json(&js);
    assert_eq!(j["interrupted"], true);
    assert_eq!(j["capture_stopped"], "interrupted");
    assert!(out.contains("capture stopped: interrupted"), "{out}");
    let sent = j["sent"].as_u64().unwrap();
    assert!(sent > 0 && sent < 10_000, "{sent}");
    // Only what was sent is expected; everything sent came back.
    assert_eq!(j["counts"]["expected"].as_u64().unwrap(), sent);
}

#[test]
fn tx_fcs_on_a_driver_without_nofcs_support_is_refused_by_name() {
    // veth, like most drivers, does not set IFF_SUPP_NOFCS: the kernel refuses SO_NOFCS sends.
    let Some(l) = Link::new("nofcs", "nf", false, 1500) else {
        return;
    };
    let pcap = l.pcap("f.pcap", &frames(3, 64));
    let o = l.wire(&[&pcap, "--rx", &l.if_w, "--tx-fcs", "model"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("does not support sending frames with their own FCS (SO_NOFCS"),
        "{}",
        text(&o)
    );
}

#[test]
fn expect_mode_judges_what_the_dut_must_deliver() {
    // The "DUT" drops every 10th frame; the expected capture says exactly that: all matched.
    let Some(l) = Link::new("expect", "ex", false, 1500) else {
        return;
    };
    let f = frames(200, 90);
    let pcap = l.pcap("f.pcap", &f);
    let kept: Vec<Vec<u8>> = (0..200)
        .filter(|i| (i + 1) % 10 != 0)
        .map(|i| f[i].clone())
        .collect();
    let exp = l.pcap("e.pcap", &kept);
    let js = l.path("r.json");
    let r = l.reflect(&["--drop-every", "10"]);
    let o = l.wire(&[&pcap, "--expect", &exp, "--pps", "20000", "--json", &js]);
    stop(r);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&js);
    assert_eq!(j["mode"], "expect");
    assert_eq!(counts(&j), [180, 180, 0, 0, 0, 0, 0]);
    assert!(j["latency"].is_null());
}

/// `tc -s qdisc show dev IF` in namespace `ns`: (packets sent, dropped) of its root qdisc.
fn qdisc_stats(ns: &str, iface: &str) -> (u64, u64) {
    let o = Command::new("ip")
        .args([
            "netns", "exec", ns, "tc", "-s", "qdisc", "show", "dev", iface,
        ])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    // " Sent 123 bytes 4 pkt (dropped 5, overlimits 6 requeues 0)"
    let words: Vec<&str> = s.split_whitespace().collect();
    let after = |w: &str| -> u64 {
        let i = words
            .iter()
            .position(|x| *x == w)
            .unwrap_or_else(|| panic!("{s}"));
        words[i + 1].trim_end_matches(',').parse().unwrap()
    };
    let pkt = words
        .iter()
        .position(|x| *x == "pkt")
        .unwrap_or_else(|| panic!("{s}"));
    (words[pkt - 1].parse().unwrap(), after("(dropped"))
}

#[test]
fn a_configured_qdisc_is_honoured_and_its_pushback_is_retried_not_lost() {
    let Some(l) = Link::new("qdisc", "qd", false, 1500) else {
        return;
    };
    // The kernel's token bucket on both transmit paths: a 3000-octet queue on the sender
    // refuses frames while full (ENOBUFS), which baser must send again, not count as lost.
    sh(&[
        "tc", "-n", &l.ns_w, "qdisc", "add", "dev", &l.if_w, "root", "tbf", "rate", "40mbit",
        "burst", "3000", "limit", "3000",
    ]);
    sh(&[
        "tc", "-n", &l.ns_d, "qdisc", "add", "dev", &l.if_d, "root", "tbf", "rate", "1gbit",
        "burst", "100000", "limit", "1000000",
    ]);
    let pcap = l.pcap("f.pcap", &frames(400, 1000));
    let r = l.reflect(&[]);
    let js = l.path("r.json");
    // Unordered: the token bucket hands frames to the veth from the sending thread or from its
    // timer, on either CPU, and the receive side takes each CPU's backlog on its own, so a frame
    // may arrive after later ones (seen once in CI: 1 of 400 reordered). Order is not what this
    // test is about; every frame arriving once is.
    // On a loaded machine the reflector or the capture may be held up for a while (a stall
    // of 100 ms once lost the frames the reflector's ring could not hold, when it held 32 ms of
    // this slow stream): the capture waits up to 10 s after the last frame sent (it stops as
    // soon as every frame was seen), and both rings hold seconds of it.
    let o = l.wire(&[&pcap, "--unordered", "--timeout-ms", "10000", "--json", &js]);
    let summary = stop(r);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&js);
    assert_eq!(counts(&j), [400, 400, 0, 0, 0, 0, 0], "{}", text(&o));
    assert_eq!(j["tx"]["qdisc"], "tbf", "{j}");
    assert_eq!(j["tx_path"], "sendmmsg");
    assert!(text(&o).contains("through qdisc tbf"), "{}", text(&o));
    // The qdiscs' own counters: every frame went through them (with PACKET_QDISC_BYPASS they
    // would show none), and each frame the sender's queue dropped was one baser sent again.
    let (sent_w, dropped_w) = qdisc_stats(&l.ns_w, &l.if_w);
    let retries = j["tx_retries"].as_u64().unwrap();
    assert_eq!(sent_w, 400, "{}", text(&o));
    assert!(dropped_w > 0, "the 3000-octet queue never filled");
    assert_eq!(retries, dropped_w, "{}", text(&o));
    assert!(
        text(&o).contains(&format!("transmit pushback: {retries} sends refused")),
        "{}",
        text(&o)
    );
    assert_eq!(qdisc_stats(&l.ns_d, &l.if_d), (400, 0), "{summary}");
    assert!(summary.contains("received 400, sent 400"), "{summary}");
    assert!(summary.contains("ring dropped 0"), "{summary}");
    // Without a carrier nothing can arrive: refused by name, nothing sent.
    sh(&["ip", "-n", &l.ns_d, "link", "set", &l.if_d, "down"]);
    let o = l.wire(&[&pcap]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("{} has no carrier (link down)", l.if_w)),
        "{}",
        text(&o)
    );
    assert_eq!(qdisc_stats(&l.ns_w, &l.if_w).0, 400);
}

#[test]
fn a_dut_of_the_kernels_own_parts_is_judged_by_its_own_counters() {
    let Some(l) = Link::new("tcmirror", "tm", false, 1500) else {
        return;
    };
    // The DUT: everything arriving at its end goes back out (tc ingress, u32 match-all,
    // mirred redirect), through a token bucket whose 5000-octet queue overflows at top speed.
    let tc = |args: &[&str]| {
        let mut v = vec!["tc", "-n", &l.ns_d];
        v.extend_from_slice(args);
        sh(&v);
    };
    tc(&["qdisc", "add", "dev", &l.if_d, "ingress"]);
    let filter = [
        "filter", "add", "dev", &l.if_d, "parent", "ffff:", "protocol", "all", "u32", "match",
        "u32", "0", "0",
    ];
    let mut redirect = filter.to_vec();
    redirect.extend_from_slice(&["action", "mirred", "egress", "redirect", "dev", &l.if_d]);
    tc(&redirect);
    tc(&[
        "qdisc", "add", "dev", &l.if_d, "root", "tbf", "rate", "100mbit", "burst", "5000", "limit",
        "5000",
    ]);
    let pcap = l.pcap("f.pcap", &frames(1000, 500));
    let js = l.path("drop.json");
    let o = l.wire(&[&pcap, "--json", &js, "--timeout-ms", "500"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&js);
    let (passed, dropped) = qdisc_stats(&l.ns_d, &l.if_d);
    assert!(dropped > 0, "the DUT's queue never overflowed");
    // Every frame the DUT's qdisc passed is matched, every one it dropped is missing.
    assert_eq!(
        counts(&j),
        [1000, passed, dropped, 0, 0, 0, 0],
        "{}",
        text(&o)
    );
    assert_eq!(positions(&j, "missing").len() as u64, dropped.min(10_000));
    // Now a DUT that sends every frame twice (mirred mirror, then redirect), unshaped.
    tc(&["qdisc", "del", "dev", &l.if_d, "root"]);
    tc(&["filter", "del", "dev", &l.if_d, "parent", "ffff:"]);
    let mut twice = filter.to_vec();
    twice.extend_from_slice(&[
        "action", "mirred", "egress", "mirror", "dev", &l.if_d, "action", "mirred", "egress",
        "redirect", "dev", &l.if_d,
    ]);
    tc(&twice);
    let js = l.path("dup.json");
    let o = l.wire(&[&pcap, "--json", &js, "--pps", "50000"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&js);
    assert_eq!(counts(&j), [1000, 1000, 0, 0, 0, 1000, 0], "{}", text(&o));
    assert_eq!(j["counts"]["received"], 2000);
}

#[test]
fn frames_the_kernel_refuses_mid_run_are_sent_again_and_its_counter_moves_are_shown() {
    let Some(l) = Link::new("mtudrop", "md", false, 1500) else {
        return;
    };
    // For 400 ms in the middle of the run the DUT's MTU is below the frames' size: the veth
    // drops each frame sent to it (is_skb_forwardable), counts it in the sender's tx_dropped
    // and, with PACKET_QDISC_BYPASS, refuses the send (ENOBUFS). baser must send each refused
    // frame again, show the counter's moves beside the frames sent during them, and lose
    // nothing but the frames the reflector could not send back at the lower MTU.
    let n = 3000u64;
    let pcap = l.pcap("f.pcap", &frames(n as usize, 1200));
    let r = l.reflect(&[]);
    let js = l.path("r.json");
    let wire = Command::new("ip")
        .args(["netns", "exec", &l.ns_w, BASER, "wire", "--tx", &l.if_w])
        .args([&pcap, "--pps", "3000", "--timeout-ms", "500", "--json", &js])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    sh(&["ip", "-n", &l.ns_d, "link", "set", &l.if_d, "mtu", "1000"]);
    std::thread::sleep(Duration::from_millis(400));
    sh(&["ip", "-n", &l.ns_d, "link", "set", &l.if_d, "mtu", "1500"]);
    let o = wire.wait_with_output().unwrap();
    let summary = stop(r);
    let j = json(&js);
    let c = counts(&j);
    // The reflector's count of frames it could not send back (EMSGSIZE at MTU 1000): those
    // received just before the change. They, and only they, are missing.
    let send_errors: u64 = summary
        .split("send errors ")
        .nth(1)
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(
        c,
        [n, n - send_errors, send_errors, 0, 0, 0, 0],
        "{}",
        text(&o)
    );
    assert_eq!(
        o.status.code(),
        Some(i32::from(send_errors > 0)),
        "{}",
        text(&o)
    );
    // The kernel's own count: each send it refused is one frame it dropped, and one baser
    // made again.
    let retries = j["tx_retries"].as_u64().unwrap();
    assert!(
        retries > 100,
        "the MTU change refused nothing: {}",
        text(&o)
    );
    let moves = j["counter_moves"].as_array().unwrap();
    let on_tx: Vec<&serde_json::Value> = moves
        .iter()
        .filter(|m| m["interface"] == l.if_w.as_str())
        .filter(|m| m["counters"]["sysfs:tx_dropped"].is_i64())
        .collect();
    let dropped: i64 = on_tx
        .iter()
        .map(|m| m["counters"]["sysfs:tx_dropped"].as_i64().unwrap())
        .sum();
    assert_eq!(dropped as u64, retries, "{j}");
    // The moves are in the report, each with the frames sent meanwhile and those of them
    // that failed. (The reflector's lost frames were sent before the first refusal, so they
    // may fall just before the span of the first move.)
    assert!(on_tx.iter().any(|m| m["frames_sent"].is_array()), "{j}");
    let missing = positions(&j, "missing");
    for m in &on_tx {
        for p in m["failed"].as_array().unwrap() {
            assert!(missing.contains(&p.as_u64().unwrap()), "{j}");
        }
    }
    assert!(
        text(&o).contains(&format!("{}: sysfs:tx_dropped +", l.if_w)),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains(&format!("transmit pushback: {retries} sends refused")),
        "{}",
        text(&o)
    );
}

/// One network namespace holding both ends of a veth pair (what bench/wire.sh measures on):
/// `baser wire` sends on one end and captures on the other, with no reflector between.
struct Pair {
    ns: String,
    a: String,
    b: String,
    dir: PathBuf,
}

impl Pair {
    fn new(test: &str, code: &str) -> Option<Self> {
        if !is_root() {
            println!("SKIP {test}: needs root for network namespaces and raw sockets");
            return None;
        }
        let pid = std::process::id() % 100_000;
        let p = Self {
            ns: format!("baser-{test}-{pid}"),
            a: format!("bsr{pid}{code}a"),
            b: format!("bsr{pid}{code}b"),
            dir: std::env::temp_dir().join(format!("baser-wire-{test}-{pid}")),
        };
        std::fs::create_dir_all(&p.dir).unwrap();
        netns(&p.ns, false);
        sh(&[
            "ip", "-n", &p.ns, "link", "add", &p.a, "type", "veth", "peer", "name", &p.b,
        ]);
        for i in [&p.a, &p.b] {
            sh(&["ip", "-n", &p.ns, "link", "set", i, "up"]);
        }
        Some(p)
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// At top speed the sender can outrun its own capture when the receive side runs on another
/// CPU (as a NIC's receive interrupt does; receive packet steering here): before the sender
/// waited for the capture ring, 13-39 % of 200,000 frames of 1514 octets were lost in the
/// capture ring (bench/wire.sh), and with the transmit ring up to 4 % in the receiving CPU's
/// backlog. Every frame must be captured and judged.
#[test]
fn at_top_speed_the_sender_keeps_to_what_its_capture_takes() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Some(p) = Pair::new("pace", "pc") else {
        return;
    };
    // Receive packet steering: the capturing end's receive work on CPU 1, the sender on 0.
    let pin = if cpus >= 2 {
        let rps = format!("/sys/class/net/{}/queues/rx-0/rps_cpus", p.b);
        sh(&[
            "ip",
            "netns",
            "exec",
            &p.ns,
            "sh",
            "-c",
            &format!("echo 2 > {rps}"),
        ]);
        "0,1"
    } else {
        "0,0"
    };
    let pcap = p.dir.join("f.pcap").to_string_lossy().into_owned();
    let mut w = FrameWriter::new(std::fs::File::create(&pcap).unwrap()).unwrap();
    for (i, f) in frames(1000, 1514).iter().enumerate() {
        w.write(Duration::from_micros(i as u64), f).unwrap();
    }
    w.finish().unwrap();
    // Both paths: the transmit ring hands the kernel bigger bursts, which overflowed the
    // receiving CPU's backlog (frames lost before the capture ring) until the sender counted
    // its frames in flight.
    for path in ["sendmmsg", "ring"] {
        let js = p.dir.join("r.json").to_string_lossy().into_owned();
        let o = Command::new("ip")
            .args([
                "netns", "exec", &p.ns, BASER, "wire", &pcap, "--tx", &p.a, "--rx", &p.b,
            ])
            .args([
                "--topspeed",
                "--loop",
                "150",
                "--pin",
                pin,
                "--timeout-ms",
                "3000",
                "--tx-path",
                path,
            ])
            .args(["--json", &js])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{path}: {}", text(&o));
        let j = json(&js);
        assert_eq!(j["capture_dropped"], 0, "{path}: {}", text(&o));
        assert_eq!(
            counts(&j),
            [150_000, 150_000, 0, 0, 0, 0, 0],
            "{path}: {}",
            text(&o)
        );
        // When the sender waited, the report says how long.
        let waited = j["capture_pauses"].as_u64().unwrap();
        assert_eq!(
            text(&o).contains("paced to the capture: the sender waited"),
            waited > 0,
            "{path}: {}",
            text(&o)
        );
        println!(
            "{path}: capture pauses {waited}, {} ms",
            j["capture_wait_ms"]
        );
    }
}
