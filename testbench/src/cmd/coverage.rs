//! `baser coverage`: the functional coverage of streams (Clauses 49 and 46), merged over a
//! regression: a table with the holes, and JSON.

use crate::command::{self, kind_of, progress_bar, Error, FecRxArgs, Kind, Output, Verdict};
use crate::report;
use crate::sinks::DecodeSinks;
use crate::stream;
use baser_engine::coverage::{Collector, Coverage};
use baser_engine::Profile;
use baser_files::InputError;
use std::path::{Path, PathBuf};

/// Options of `baser coverage`.
#[derive(clap::Args, Debug)]
pub struct CoverageArgs {
    /// Streams (.bits, .b66, .xgmii) to measure, and coverage files (.json, written by
    /// `--json` or `decode`/`check --coverage`) to merge with them.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Write the merged coverage as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the coverage table with its holes as a self-contained HTML page.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Exit 1 when fewer than this percent of the bins are hit (a CI gate).
    #[arg(long)]
    pub fail_under: Option<f64>,
    /// The IFG the deficit idle count is followed with, octets.
    #[arg(long, default_value_t = 12)]
    pub ifg: u16,
    /// Longest good frame, FCS included.
    #[arg(long, default_value_t = 1518)]
    pub max_frame_length: u16,
    /// Compatibility profile.
    #[arg(long, value_parser = command::profile_parser(), default_value_t = Profile::Ieee)]
    pub profile: Profile,
    /// What the stream inputs hold, where their extension does not say.
    #[arg(long, value_enum)]
    pub format: Option<Kind>,
    /// A .bits input is decoded offline (boundary found first) instead of as a receiver sees it.
    #[arg(long)]
    pub offline: bool,
    /// Line rate and FEC: with --fec the .bits inputs are FEC'd lines, decoded through the FEC,
    /// and its bins (lock, FEC blocks or codewords by outcome, RS-FEC markers, hi_ser, bypass
    /// modes) join the plan.
    #[command(flatten)]
    pub fec: FecRxArgs,
}

/// Reads a coverage file.
///
/// # Errors
/// Unreadable, or not a coverage document.
pub fn read(path: &Path) -> Result<Coverage, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Input(InputError::io(path, &e)))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Input(InputError::line(
            path,
            e.line() as u64,
            format!("not a coverage document (baser coverage --json): {e}"),
        ))
    })
}

/// The coverage of one stream file.
fn measure(path: &Path, a: &CoverageArgs, out: Output) -> Result<Coverage, Error> {
    let kind = kind_of(path, a.format)?;
    if kind == Kind::Frames {
        return Err(Error::Usage(format!(
            "{}: coverage reads .bits, .b66 or .xgmii streams (and .json coverage files)",
            path.display()
        )));
    }
    let opt = baser_engine::Options {
        profile: a.profile,
        max_frame_length: Some(a.max_frame_length),
        max_events: 20,
        rate: a.fec.line.rate,
        ..baser_engine::Options::default()
    }
    .rx();
    let view = if a.offline {
        baser_engine::live::RxView::Offline
    } else {
        baser_engine::live::RxView::Receiver
    };
    let sinks = DecodeSinks {
        coverage: Some(Collector::new(&path.display().to_string(), a.ifg)),
        ..DecodeSinks::none()
    };
    let bar = progress_bar(path, out);
    if a.fec.is_on() {
        command::refuse_fec_kind(path, kind)?;
        let fec = a.fec.options()?;
        let (pcs, _, mut sinks, f) = stream::decode_fec(
            path,
            &opt,
            stream::FecLine::new(&fec, view),
            u64::MAX,
            sinks,
            &|n| bar.set(n),
        )?;
        bar.done();
        let mut c = sinks
            .coverage
            .take()
            .map(|c| c.finish(&pcs))
            .unwrap_or_default();
        c.add_fec(&f, &fec);
        return Ok(c);
    }
    let (pcs, _, mut sinks) =
        stream::decode_kind(kind.name(), path, &opt, view, sinks, &|n| bar.set(n))?;
    bar.done();
    Ok(sinks
        .coverage
        .take()
        .map(|c| c.finish(&pcs))
        .unwrap_or_default())
}

/// `baser coverage`.
///
/// # Errors
/// Unreadable input, unwritable output.
pub fn coverage(a: &CoverageArgs, out: Output) -> Result<Verdict, Error> {
    let is_json = |p: &Path| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    };
    // Every input is read before anything is written, so the merged JSON may go over one of
    // the JSON inputs (`coverage total.json run.bits --json total.json` adds a run); a stream
    // dump is never written over.
    command::check_outputs(
        &a.inputs
            .iter()
            .map(|p| (!is_json(p)).then_some(p.as_path()))
            .collect::<Vec<_>>(),
        &[a.json.as_deref(), a.html.as_deref()],
    )?;
    let mut total: Option<Coverage> = None;
    for p in &a.inputs {
        let is_json = is_json(p);
        let c = if is_json {
            read(p)?
        } else {
            measure(p, a, out)?
        };
        match total.as_mut() {
            Some(t) => t.merge(&c),
            None => total = Some(c),
        }
    }
    let total = total.unwrap_or_default();
    if let Some(p) = &a.json {
        report::write_json(p, &total).map_err(|e| Error::Output(p.clone(), e))?;
    }
    let pct = total.percent();
    let below = a.fail_under.is_some_and(|f| pct < f);
    if let Some(p) = &a.html {
        let page = crate::html::coverage_page(&total, a.fail_under.map(|f| (f, below)));
        crate::html::write(p, &page)?;
    }
    if !out.quiet {
        print!("{}", table(&total, out.verbose > 0));
        if let Some(f) = a.fail_under {
            println!(
                "{}",
                if below {
                    format!("FAIL: {pct:.1} % is under {f} %")
                } else {
                    format!("PASS: {pct:.1} % >= {f} %")
                }
            );
        }
    }
    Ok(if below { Verdict::Fail } else { Verdict::Pass })
}

/// The text table: per group its bins hit, and the holes (every bin with `all`).
pub fn table(c: &Coverage, all: bool) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let (hit, n) = c.totals();
    let _ = writeln!(
        s,
        "baser coverage: {} run{}, {hit} of {n} bins hit ({:.1} %)",
        c.runs.len(),
        if c.runs.len() == 1 { "" } else { "s" },
        c.percent()
    );
    for g in &c.groups {
        let _ = writeln!(
            s,
            "  {:<15} {:>3}/{:<3} {}",
            g.name,
            g.covered(),
            g.bins.len(),
            g.what
        );
        for b in &g.bins {
            if all || b.hits == 0 {
                let _ = writeln!(
                    s,
                    "      {:>8}  {}",
                    if b.hits == 0 {
                        "HOLE".to_string()
                    } else {
                        b.hits.to_string()
                    },
                    b.name
                );
            }
        }
    }
    s
}
