//! The HTML reports rendered by a real browser: headless Chromium loads each page from a file
//! (no network; the pages hold no script) and dumps the DOM it built, which must show the
//! verdict, the lane table of the first divergence, the frame list, the timeline and the
//! coverage holes. Without Chromium the test says so and passes, unless `CI` is set (`.ci/run`
//! installs it): then it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `baser` in the repository root; returns its exit code.
fn baser(args: &[&str]) -> Option<i32> {
    let o = Command::new(env!("CARGO_BIN_EXE_baser"))
        .args(args)
        .arg("-q")
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.status.code()
}

/// A scratch folder, removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!("baser-html-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
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

/// The browser: `BASER_CHROMIUM`, else `chromium` or `chromium-browser` on the PATH.
fn chromium() -> Option<String> {
    let names = std::env::var("BASER_CHROMIUM")
        .ok()
        .into_iter()
        .chain(["chromium".to_string(), "chromium-browser".to_string()]);
    for n in names {
        let ok = Command::new(&n)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(n);
        }
    }
    None
}

/// Headless Chromium on `page` with `what` (`--dump-dom` or `--screenshot=F`), a fresh profile
/// and nothing that reaches the network; returns its stdout. Killed after two minutes.
fn browse(browser: &str, s: &Scratch, page: &str, what: &[&str]) -> String {
    let profile = tempdir(s, "profile");
    let out_path = s.0.join("browser.out");
    let out = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={profile}"))
        .args(what)
        .arg(format!("file://{page}"))
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{browser} failed on {page}: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().ok();
            child.wait().ok();
            panic!("{browser} did not finish on {page} in 2 minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::remove_dir_all(&profile).ok();
    std::fs::read_to_string(out_path).unwrap()
}

fn tempdir(s: &Scratch, name: &str) -> String {
    let p = s.0.join(name);
    std::fs::create_dir_all(&p).unwrap();
    p.to_string_lossy().into_owned()
}

/// The (block, lane) of every cell marked `diff` in the DOM.
fn diff_cells(dom: &str) -> Vec<(u64, String)> {
    dom.match_indices("<td class=\"diff\" data-block=\"")
        .map(|(i, m)| {
            let rest = &dom[i + m.len()..];
            let (block, rest) = rest.split_once('"').unwrap();
            let lane = rest
                .strip_prefix(" data-lane=\"")
                .unwrap()
                .split_once('"')
                .unwrap()
                .0;
            (block.parse().unwrap(), lane.to_string())
        })
        .collect()
}

/// The DOM from `<tr` … `marker` to the end of that row.
fn row<'a>(dom: &'a str, marker: &str) -> &'a str {
    let at = dom
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in the DOM"));
    let start = dom[..at].rfind("<tr").unwrap();
    let end = at + dom[at..].find("</tr>").unwrap();
    &dom[start..end]
}

/// One browser for the whole file: the tests below share it and run one after another.
fn browser_or_skip() -> Option<String> {
    match chromium() {
        Some(b) => Some(b),
        None if std::env::var_os("CI").is_some() => {
            panic!("CI is set but chromium is not installed (.ci/run installs it)")
        }
        None => {
            eprintln!("SKIP: chromium is not installed (apt-get install chromium; .ci/run does)");
            None
        }
    }
}

#[test]
fn the_html_reports_render_in_a_browser() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let s = Scratch::new("render");
    demo_report_shows_the_three_faults(&browser, &s);
    passing_report_has_no_difference(&browser, &s);
    pcs_report_shows_the_models_blocks_against_the_duts(&browser, &s);
    coverage_report_lists_the_holes(&browser, &s);
    fec_report_names_the_frames_of_an_uncorrectable_codeword(&browser, &s);
}

/// `check --fec` on an RS-FEC line whose codeword 3 holds 8 symbol errors: the FEC section
/// lists the codeword with the frame its blocks held, and the lane table of that frame's first
/// difference comes from the stream decoded through the FEC.
fn fec_report_names_the_frames_of_an_uncorrectable_codeword(browser: &str, s: &Scratch) {
    let line = s.path("rs.bits");
    let code = baser(&[
        "encode",
        "vectors/demo/frames.pcap",
        "--rate",
        "25g",
        "--fec",
        "rs",
        "--bits",
        &line,
        "--inject",
        "symbols:3:8",
    ]);
    assert_eq!(code, Some(0));
    let page = s.path("fec.html");
    let code = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        &line,
        "--rate",
        "25g",
        "--fec",
        "rs",
        "--html",
        &page,
    ]);
    assert_eq!(code, Some(1));
    let dom = browse(browser, s, &page, &["--dump-dom"]);
    assert!(dom.contains("<h1 id=\"verdict\">FAIL</h1>"), "{dom}");
    let fec = &dom[dom.find("<section id=\"fec\">").expect("a FEC section")..];
    let fec = &fec[..fec.find("</section>").unwrap()];
    assert!(fec.contains("Clause 108 RS-FEC below the PCS."), "{fec}");
    let cw = row(fec, "<td>15840</td>");
    assert_eq!(
        cw, "<tr class=\"fail\"><td>3</td><td>15840</td><td>236..316</td><td>2</td>",
        "{fec}"
    );
    // Frame 2's first difference, at the codeword's first block, in the lane table.
    assert!(dom.contains("DUT block 236 lane 0</caption>"), "{dom}");
    assert!(dom.contains("fec: no uncorrectable codewords"), "{dom}");
}

fn demo_report_shows_the_three_faults(browser: &str, s: &Scratch) {
    let page = s.path("demo.html");
    let code = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        "vectors/demo/dut.b66",
        "--html",
        &page,
    ]);
    assert_eq!(code, Some(1));
    let dom = browse(browser, s, &page, &["--dump-dom"]);
    assert!(dom.contains("<h1 id=\"verdict\">FAIL</h1>"), "{dom}");
    assert!(!dom.contains("<script"));
    // The lane table of frame 2 around block 189: one line bit flipped is three descrambled
    // bit errors (vectors/README.md), at lanes 2 and 7 of block 189 and lane 1 of block 190.
    assert!(dom.contains(
        "first difference at octet 310: expected 0xb9, got 0xa9; DUT block 189 lane 2</caption>"
    ));
    let focus = row(&dom, "<th class=\"blk\">189</th>");
    assert!(focus.starts_with("<tr class=\"focus\">"), "{focus}");
    assert_eq!(focus.matches("<td").count(), 9, "{focus}");
    assert!(focus.contains(
        "<td class=\"diff\" data-block=\"189\" data-lane=\"2\"><span class=\"e\">b9</span><span class=\"d\">a9</span><span class=\"x\"><span class=\"mark\">≠</span> <code>00010000</code></span></td>"
    ), "{focus}");
    assert_eq!(
        diff_cells(&dom),
        [(189, "2"), (189, "7"), (190, "1")].map(|(b, l)| (b, l.to_string()))
    );
    for b in 186..=192 {
        assert!(
            dom.contains(&format!("<th class=\"blk\">{b}</th>")),
            "block {b}"
        );
    }
    // The invalid sync header's block, the DUT's transfers alone.
    let invalid = row(&dom, "<th class=\"blk\">575</th>");
    assert!(invalid.contains("0 invalid"), "{invalid}");
    assert_eq!(invalid.matches("<span class=\"d\">/E/</span>").count(), 8);
    // The frame list: frame 6 missing, frame 2 corrupted.
    let missing = row(&dom, "data-frame=\"6\"");
    assert!(
        missing.contains("<td class=\"st-missing\">missing</td>"),
        "{missing}"
    );
    let corrupted = row(&dom, "data-frame=\"2\"");
    assert!(corrupted.contains("corrupted") && corrupted.contains("fcs_error"));
    // The timeline: an SVG with a mark at the invalid header and at frame 2's /S/.
    let svg = &dom[dom.find("<svg class=\"timeline\"").expect("a timeline")..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    assert!(svg.contains("<g class=\"mark k3\" data-block=\"575\"><title>block 575: RX_C --E--&gt; RX_E: invalid sync header 0 (49.2.4.3)</title>"), "{svg}");
    assert!(
        svg.contains("<g class=\"mark k0\" data-block=\"149\">"),
        "{svg}"
    );
    assert!(
        svg.contains("<g class=\"mark k1\""),
        "frame 6 missing: {svg}"
    );
    assert_eq!(svg.matches("<g class=\"mark").count(), 3, "{svg}");
    // A look at it: the screenshot is a PNG of the window's size.
    let png = s.path("demo.png");
    browse(browser, s, &page, &[&format!("--screenshot={png}")]);
    let png = std::fs::read(png).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(
        png.get(16..24),
        Some(&[0, 0, 5, 0, 0, 0, 7, 0xd0][..]),
        "1280 x 2000"
    );
}

fn passing_report_has_no_difference(browser: &str, s: &Scratch) {
    let page = s.path("pass.html");
    let code = baser(&[
        "check",
        "--frames",
        "vectors/demo/frames.pcap",
        "--dut",
        "vectors/demo/expected.b66",
        "--html",
        &page,
    ]);
    assert_eq!(code, Some(0));
    let dom = browse(browser, s, &page, &["--dump-dom"]);
    assert!(dom.contains("<h1 id=\"verdict\">PASS</h1>"), "{dom}");
    assert!(!dom.contains("class=\"diff\""));
    assert!(!dom.contains("<table class=\"lanes\">"));
    assert!(dom.contains("<svg class=\"timeline\""));
    assert!(dom.contains("17 of 17 checks passed, 0 failed."), "{dom}");
}

fn pcs_report_shows_the_models_blocks_against_the_duts(browser: &str, s: &Scratch) {
    let page = s.path("pcs.html");
    let code = baser(&[
        "check",
        "--xgmii",
        "vectors/demo/expected.xgmii",
        "--dut",
        "vectors/demo/dut.b66",
        "--html",
        &page,
    ]);
    assert_eq!(code, Some(1));
    let dom = browse(browser, s, &page, &["--dump-dom"]);
    assert!(dom.contains("<h1 id=\"verdict\">FAIL</h1>"));
    let lanes = &dom[dom.find("<table class=\"lanes\">").expect("a lane table")..];
    let lanes = &lanes[..lanes.find("</table>").unwrap()];
    assert_eq!(
        diff_cells(lanes),
        [
            (189, "header"),
            (189, "2"),
            (189, "7"),
            (190, "header"),
            (190, "1")
        ]
        .map(|(b, l)| (b, l.to_string()))
    );
    assert!(lanes.contains("<span class=\"e\">2 data <code>8ab470eaf6b94344</code></span><span class=\"d\">2 data <code>82b470eaf6a94344</code></span>"), "{lanes}");
    assert!(dom.contains("<g class=\"mark k0\" data-block=\"189\">"));
}

fn coverage_report_lists_the_holes(browser: &str, s: &Scratch) {
    let mut streams: Vec<String> = std::fs::read_dir(root().join("vectors"))
        .unwrap()
        .map(|d| d.unwrap().path().join("expected.b66"))
        .filter(|p| p.exists())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    streams.sort();
    assert!(streams.len() >= 5, "{streams:?}");
    let page = s.path("coverage.html");
    let mut args = vec!["coverage"];
    args.extend(streams.iter().map(String::as_str));
    args.extend(["--html", &page]);
    assert_eq!(baser(&args), Some(0));
    let dom = browse(browser, s, &page, &["--dump-dom"]);
    let formats = row(&dom, "data-group=\"block_formats\"");
    assert!(
        formats.contains("<code class=\"hole\">reserved block type</code>"),
        "{formats}"
    );
    assert!(formats.contains("<span class=\"bar\""), "{formats}");
    for g in ["start_lane", "rx_arrows", "link_fault", "mac_class"] {
        assert!(dom.contains(&format!("data-group=\"{g}\"")), "{g}");
    }
    assert!(dom.contains(&format!("over {} runs", streams.len())));
}

/// Without a browser: the files hold what the browser tests look for, and a file that cannot
/// be written is exit 2 with its name.
#[test]
fn html_reports_are_written_by_both_checks_and_coverage() {
    let s = Scratch::new("files");
    let frames = s.path("frames.html");
    let pcs = s.path("pcs.html");
    let cov = s.path("coverage.html");
    let demo = [
        "--dut",
        "vectors/demo/dut.b66",
        "--max-report",
        "1",
        "--html",
    ];
    let mut a = vec!["check", "--frames", "vectors/demo/frames.pcap"];
    a.extend(demo);
    a.push(&frames);
    assert_eq!(baser(&a), Some(1));
    let mut a = vec!["check", "--xgmii", "vectors/demo/expected.xgmii"];
    a.extend(demo);
    a.push(&pcs);
    assert_eq!(baser(&a), Some(1));
    assert_eq!(
        baser(&[
            "coverage",
            "vectors/demo/expected.b66",
            "--fail-under",
            "99",
            "--html",
            &cov
        ]),
        Some(1)
    );
    let read = |p: &str| std::fs::read_to_string(p).unwrap();
    let (frames, pcs, cov) = (read(&frames), read(&pcs), read(&cov));
    for page in [&frames, &pcs, &cov] {
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.trim_end().ends_with("</html>"));
        for external in ["<script", "<link", "src=", "href=", "url("] {
            assert!(!page.contains(external), "{external}");
        }
    }
    assert!(frames.contains("<td class=\"diff\" data-block=\"189\" data-lane=\"2\">"));
    assert!(frames.contains("<g class=\"mark k3\" data-block=\"575\">"));
    // --max-report 1 keeps one divergence in detail; the window is the model's blocks around it.
    assert!(pcs.contains("<td class=\"diff\" data-block=\"190\" data-lane=\"1\">"));
    assert!(
        cov.contains("<h1 id=\"verdict\">FAIL</h1><p>coverage "),
        "{cov}"
    );
    assert!(cov.contains("<code class=\"hole\">reserved block type</code>"));

    let nowhere = s.path("no/such/dir/r.html");
    let o = Command::new(env!("CARGO_BIN_EXE_baser"))
        .args(["check", "--frames", "vectors/demo/frames.pcap"])
        .args(["--dut", "vectors/demo/dut.b66", "--html", &nowhere, "-q"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{nowhere}: cannot write")), "{err}");
}
