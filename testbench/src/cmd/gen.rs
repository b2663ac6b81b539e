//! `baser gen`: reproducible stimulus from a seed, with the outcome the standard demands.

use crate::command::{create, Error, FecArgs, Output, Verdict};
use crate::report;
use baser_engine::gen::{generate, FecStimulus, GenOptions, Generated, Mode};
use baser_files::b66::{B66Header, B66Writer, Scrambling};
use baser_files::pcap::FrameWriter;
use baser_files::xgmii::XgmiiWriter;
use std::io::Write;
use std::path::{Path, PathBuf};

mod suite;

/// Options of `baser gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// The seed: the same seed gives the same files (within one generator version).
    #[arg(
        long,
        required_unless_present = "suite",
        default_value_t = 0,
        hide_default_value = true
    )]
    pub seed: u64,
    /// The folder to write to (made if missing): frames.pcap, stream.xgmii, stream.b66,
    /// stream.bits, expected.json, outcomes.txt.
    #[arg(
        long,
        required_unless_present = "suite",
        default_value = ".",
        hide_default_value = true
    )]
    pub out: PathBuf,
    /// The conformance catalogue instead (docs/conformance.md, "SystemVerilog"), written to
    /// DIR for a bench that replays it through the DPI-C package: per receive case CASE.bits
    /// (its line: serdes bits as sent, bit 0 first, 66-bit clocks back to back) and
    /// CASE.expected.json (the model's frames, status levels and counters, the levels the
    /// standard demands), per transmit case CASE.pcap (its frames), and index.json (cases,
    /// clauses, needs, files, the rate); the test-pattern cases (rx-prbs31, tx-prbs31) as
    /// CASE.bits and CASE.pattern.json (the clocks the DUT's test-pattern enable is high, the
    /// clocks judged, the count its error counter must move by). Takes --cases,
    /// --max-frame-length, --ber-window-blocks, --prbs31-inverted and --rate (10g or 25g;
    /// --fec none).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["seed", "out", "hostile", "for_dut", "cover", "test_pattern"])]
    pub suite: Option<PathBuf>,
    /// With --suite: the cases to write, comma separated (default: every case).
    #[arg(long, value_delimiter = ',', requires = "suite")]
    pub cases: Vec<String>,
    /// With --suite: the DUT's BER timer in blocks (default: the standard's, 19531 = 125 µs
    /// at 10G, 781250 = 2 ms at 25G). The expected outcomes run the model's BER monitor with
    /// it; rx-hi-ber-96/97 (25G) place their burst in the middle of one window; rx-hi-ber-16
    /// (10G) needs the standard's timer, index.json says so.
    #[arg(long, requires = "suite")]
    pub ber_window_blocks: Option<usize>,
    /// With --suite: the DUT's PRBS31 test pattern is the complement of the LFSR's output
    /// (as verilog-ethernet and taxi send and check it; whether IEEE 802.3 Figure 49-9
    /// inverts it is unverified, so the default is not inverted).
    #[arg(long, requires = "suite")]
    pub prbs31_inverted: bool,
    /// Scenario items: frames, ordered set runs and (with --hostile) line faults.
    #[arg(long, default_value_t = 40)]
    pub items: usize,
    /// Also what no conforming transmitter sends: invalid sync headers, reserved block
    /// types, /LI/ without EEE, a BER burst. Default: only what a conforming transmitter may
    /// send (for a DUT's receiver).
    #[arg(long, conflicts_with = "for_dut")]
    pub hostile: bool,
    /// Only what a conforming transmitter may send (the default; for a DUT's receiver).
    #[arg(long)]
    pub for_dut: bool,
    /// The IFG, octets (with the deficit idle count).
    #[arg(long, default_value_t = 12)]
    pub ifg: u16,
    /// The largest good frame the receiver takes, FCS included (1518 allows 1522 when tagged);
    /// longer frames are expected as too_long.
    #[arg(long, default_value_t = 1518)]
    pub max_frame_length: u16,
    /// Bits before the first block in stream.bits (a serdes that starts mid-block); default
    /// 0, and 13 with --cover (block lock is then found after slips).
    #[arg(long)]
    pub bit_offset: Option<u32>,
    /// A stream that hits every bin of `baser coverage` (hostile): stream.bits and stream.xgmii, with
    /// tx-init-{S,D,T,E}.xgmii (the transmit diagram leaves TX_INIT once per stream), merged,
    /// cover 100 %. Its frames' outcomes are the model's decode (expected.json says so).
    #[arg(long, conflicts_with = "for_dut")]
    pub cover: bool,
    /// A test-pattern stream instead (§49.2.8; for a receiver in test-pattern mode): prbs31,
    /// prbs31-inverted or scrambled-idle; stream.bits, stream.b66 (the line blocks as sent,
    /// `# unscrambled`) and expected.json with the errors the checker of §49.2.12 must count.
    #[arg(long, value_parser = |s: &str| s.parse::<baser_engine::gen::TestPattern>(), conflicts_with_all = ["cover", "hostile"])]
    pub test_pattern: Option<baser_engine::gen::TestPattern>,
    /// With --test-pattern: the stream's length in blocks.
    #[arg(long, default_value_t = 100_000, requires = "test_pattern")]
    pub blocks: u64,
    /// With --test-pattern: line bits flipped on purpose (one in each stretch of 40 blocks).
    #[arg(long, default_value_t = 0, requires = "test_pattern")]
    pub errors: usize,
    /// Line rate and FEC: with --fec, stream.bits is the FEC's line with faults planned on
    /// it (stream.b66 the PCS's blocks above it), and expected.json has their `fec` counters.
    #[command(flatten)]
    pub line: FecArgs,
    /// With --fec: FEC blocks or codewords given a correctable fault (RS-FEC 1 to 7 symbol
    /// errors, Clause 74 a burst of 1 to 11 bits).
    #[arg(long, default_value_t = 4)]
    pub fec_errors: usize,
    /// With --fec: FEC blocks or codewords given an uncorrectable fault (RS-FEC 8 to 12
    /// symbols, at most 1: its 80 invalid headers are most of the 97 that raise hi_ber in 2 ms;
    /// Clause 74 a burst of 12 or 13 bits).
    #[arg(long, default_value_t = 0)]
    pub fec_uncorrectable: usize,
}

/// `baser gen`.
///
/// # Errors
/// A file cannot be written.
pub fn gen(a: &GenArgs, out: Output) -> Result<Verdict, Error> {
    if let Some(dir) = &a.suite {
        let s = suite::SuiteArgs {
            dir,
            cases: &a.cases,
            rate: a.line.rate,
            fec: a.line.fec,
            max_frame_length: a.max_frame_length,
            ber_window_blocks: a.ber_window_blocks,
            prbs31_inverted: a.prbs31_inverted,
        };
        return suite::suite(&s, out);
    }
    if a.prbs31_inverted {
        return Err(Error::Usage(
            "--prbs31-inverted: only with --suite DIR".into(),
        ));
    }
    if !a.cases.is_empty() {
        return Err(Error::Usage("--cases: only with --suite DIR".into()));
    }
    let bit_offset = a.bit_offset.unwrap_or(if a.cover { 13 } else { 0 });
    if bit_offset > 65 {
        return Err(Error::Usage(format!(
            "--bit-offset {bit_offset}: expected 0..65 bits"
        )));
    }
    let fec = fec_settings(a)?;
    std::fs::create_dir_all(&a.out).map_err(|e| Error::Output(a.out.clone(), e))?;
    if let Some(pattern) = a.test_pattern {
        return test_pattern(a, pattern, bit_offset, out);
    }
    let opt = GenOptions {
        seed: a.seed,
        items: a.items,
        mode: if a.hostile || a.cover {
            Mode::Hostile
        } else {
            Mode::ForDut
        },
        ifg: a.ifg,
        max_frame_length: a.max_frame_length,
        ..GenOptions::default()
    };
    let made_by = format!(
        "made by baser {} gen --seed {}{} (generator {})",
        env!("CARGO_PKG_VERSION"),
        a.seed,
        if a.cover {
            " --cover".to_string()
        } else {
            format!(
                " --items {}{}",
                a.items,
                if a.hostile { " --hostile" } else { "" }
            )
        },
        baser_engine::gen::GENERATOR
    );
    let mut g = if a.cover {
        let (g, starts) = baser_engine::gen::cover(&opt);
        for (c, words) in starts {
            let p = a.out.join(format!("tx-init-{c}.xgmii"));
            let note =
                format!("the transmit diagram's arrow TX_INIT --{c}--> (a stream starts once)");
            let mut w = XgmiiWriter::new(create(&p)?, &[&made_by, &note]).map_err(output(&p))?;
            for x in words {
                w.write(x).map_err(output(&p))?;
            }
            w.finish().map_err(output(&p))?;
        }
        g
    } else {
        generate(&opt)
    };
    let stim = match &fec {
        Some(f) => Some(
            baser_engine::gen::fec_stimulus(
                &mut g,
                a.line.rate,
                f,
                &baser_engine::gen::FecFaults {
                    correctable: a.fec_errors,
                    uncorrectable: a.fec_uncorrectable,
                    seed: a.seed,
                    bit_offset,
                },
            )
            .map_err(Error::Usage)?,
        ),
        None => None,
    };
    let made_by = match &fec {
        Some(f) => format!(
            "{made_by} --rate {} --fec {} --fec-errors {} --fec-uncorrectable {}",
            a.line.rate, f.kind, a.fec_errors, a.fec_uncorrectable
        ),
        None => made_by,
    };
    write_files(
        &a.out,
        &g,
        &made_by,
        bit_offset,
        stim.as_ref().map(|s| s.line.as_slice()),
    )?;
    if !out.quiet {
        print_summary(a, &g, stim.as_ref());
    }
    Ok(Verdict::Pass)
}

/// The run's summary on stdout: what was made, the PCS's and the FEC's expected counts.
fn print_summary(a: &GenArgs, g: &Generated, stim: Option<&FecStimulus>) {
    let e = &g.expectation;
    let not_ok = e.frames.iter().filter(|f| f.outcome != "ok").count();
    println!(
        "baser gen: seed {} ({}): {} frames ({} not ok), {} line events, {} blocks -> {}",
        e.seed,
        if a.cover {
            "cover"
        } else if a.hostile {
            "hostile"
        } else {
            "for a DUT"
        },
        e.frames.len(),
        not_ok,
        e.events.len(),
        e.blocks,
        a.out.display()
    );
    let n = |v: Option<u64>| v.map_or("not predicted".to_string(), |v| v.to_string());
    println!(
        "  expected pcs: invalid headers {}, errored blocks {}, hi_ber {}, lock losses {}, link fault changes {}",
        n(e.pcs.invalid_headers),
        n(e.pcs.errored_blocks),
        n(e.pcs.hi_ber_episodes),
        e.pcs.lock_losses,
        e.pcs.link_fault_changes
    );
    if !g.slips.is_empty() {
        println!("  a bit slip: the stream is stream.bits only (no stream.b66)");
    }
    if let (Some(s), Some(f)) = (&stim, &e.fec) {
        use baser_engine::inject::Fault;
        let specs: Vec<String> = s
            .faults
            .iter()
            .map(|f| match *f {
                Fault::Symbols(c, n) => format!("symbols:{c}:{n}"),
                Fault::Burst(b, n) => format!("burst:{b}:{n}"),
                ref other => format!("{other:?}"),
            })
            .collect();
        println!(
            "  --fec {}: {} {}s on the line (stream.bits); {} corrected and {} uncorrectable expected (faults: {})",
            f.kind,
            f.codewords_on_line,
            f.kind.unit(),
            f.corrected_codewords,
            f.uncorrected_codewords,
            specs.join(" ")
        );
    }
}

fn output(p: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Output(p.to_path_buf(), e)
}

/// The FEC settings of `--fec`, refused with the stimulus kinds it does not go with.
fn fec_settings(a: &GenArgs) -> Result<Option<baser_engine::fec::FecOptions>, Error> {
    if a.line.fec == baser_engine::fec::Fec::None {
        return Ok(None);
    }
    if a.test_pattern.is_some() {
        return Err(Error::Usage(
            "--fec with --test-pattern: a test pattern is sent without a FEC below the PCS (give one or the other)"
                .into(),
        ));
    }
    let f = a.line.options();
    f.check(a.line.rate).map_err(Error::Usage)?;
    Ok(Some(f))
}

/// Writes the stream in every form, the frames and the expectation; `fec_line`: the FEC's
/// line as `stream.bits`.
fn write_files(
    dir: &Path,
    g: &Generated,
    made_by: &str,
    bit_offset: u32,
    fec_line: Option<&[u8]>,
) -> Result<(), Error> {
    let e = &g.expectation;
    let p = dir.join("frames.pcap");
    let mut w = FrameWriter::new(create(&p)?).map_err(output(&p))?;
    for f in &e.frames {
        w.write(std::time::Duration::from_micros(f.index), &f.data)
            .map_err(output(&p))?;
    }
    w.finish().map_err(output(&p))?;

    let p = dir.join("stream.xgmii");
    let mut w = XgmiiWriter::new(
        create(&p)?,
        &[
            made_by,
            "the transmitter's transfers, before any line fault",
        ],
    )
    .map_err(output(&p))?;
    for x in &g.words {
        w.write(*x).map_err(output(&p))?;
    }
    w.finish().map_err(output(&p))?;

    // A stream with a bit slip exists only as serial bits: no stream.b66 then.
    let p = dir.join("stream.b66");
    if g.slips.is_empty() {
        let mut w = B66Writer::new(
            create(&p)?,
            B66Header {
                scrambling: Scrambling::Scrambled,
                scrambler_state: Some(e.scrambler_state),
            },
        )
        .map_err(output(&p))?;
        w.comment(made_by).map_err(output(&p))?;
        for b in &g.line {
            w.write(*b).map_err(output(&p))?;
        }
        w.finish().map_err(output(&p))?;
    } else if p.exists() {
        std::fs::remove_file(&p).map_err(output(&p))?;
    }

    // stream.bits: `bit_offset` bits (ones), then the line with its slips, bit 0 first.
    let p = dir.join("stream.bits");
    match fec_line {
        Some(line) => std::fs::write(&p, line),
        None => std::fs::write(&p, g.serial(bit_offset)),
    }
    .map_err(output(&p))?;

    let p = dir.join("expected.json");
    report::write_json(&p, e).map_err(output(&p))?;

    let p = dir.join("outcomes.txt");
    let mut w = create(&p)?;
    writeln!(w, "# {made_by}").map_err(output(&p))?;
    writeln!(
        w,
        "# index outcome (baser check --frames frames.pcap --outcomes outcomes.txt)"
    )
    .map_err(output(&p))?;
    for f in e.frames.iter().filter(|f| f.outcome != "ok") {
        writeln!(
            w,
            "{} {}  # {}{}",
            f.index,
            f.outcome,
            f.kind,
            f.fault.map_or(String::new(), |x| format!(", {x}"))
        )
        .map_err(output(&p))?;
    }
    w.flush().map_err(output(&p))?;
    Ok(())
}

/// `baser gen --test-pattern`.
fn test_pattern(
    a: &GenArgs,
    pattern: baser_engine::gen::TestPattern,
    bit_offset: u32,
    out: Output,
) -> Result<Verdict, Error> {
    let (line, e) = baser_engine::gen::test_pattern(pattern, a.blocks, a.errors, a.seed);
    let made_by = format!(
        "made by baser {} gen --seed {} --test-pattern {} --blocks {} --errors {} (generator {})",
        env!("CARGO_PKG_VERSION"),
        a.seed,
        serde_json::to_value(pattern)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        a.blocks,
        a.errors,
        baser_engine::gen::GENERATOR
    );
    let p = a.out.join("stream.b66");
    let mut w = B66Writer::new(
        create(&p)?,
        B66Header {
            scrambling: Scrambling::Unscrambled,
            scrambler_state: None,
        },
    )
    .map_err(output(&p))?;
    w.comment(&made_by).map_err(output(&p))?;
    w.comment("a test pattern: the line blocks as sent")
        .map_err(output(&p))?;
    for b in &line {
        w.write(*b).map_err(output(&p))?;
    }
    w.finish().map_err(output(&p))?;
    let p = a.out.join("stream.bits");
    std::fs::write(&p, baser_engine::gen::serial(&line, &[], bit_offset)).map_err(output(&p))?;
    let p = a.out.join("expected.json");
    report::write_json(&p, &e).map_err(output(&p))?;
    if !out.quiet {
        println!(
            "baser gen: {} blocks of a test pattern, {} bits flipped: a checker counts {} errors -> {}",
            e.blocks,
            e.flipped_bits.len(),
            e.errors,
            a.out.display()
        );
    }
    Ok(Verdict::Pass)
}
