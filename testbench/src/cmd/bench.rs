//! `baser bench`: the engine's chains, and the commands users run, as multiples of the line
//! rate.

use crate::command::{Error, Output, Verdict};
use crate::report;
use serde::Serialize;
use std::path::PathBuf;

/// Options of `baser bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Seconds per chain and mix.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Timed runs per measurement (the median is reported, with the spread).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Traffic mixes: min, max, uniform (default: all three).
    #[arg(long)]
    pub mix: Vec<baser_engine::bench::Mix>,
    /// Also write the table as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// `baser bench`: TX and RX chain throughput as multiples of the line rate.
///
/// # Errors
/// The JSON file cannot be written.
pub fn bench(a: &BenchArgs, out: Output) -> Result<Verdict, Error> {
    use baser_engine::bench::{memcpy_gbs, run_mix, Mix};
    let time = std::time::Duration::from_secs_f64(a.seconds.max(0.1));
    let mixes = if a.mix.is_empty() {
        vec![Mix::Uniform, Mix::Min, Mix::Max]
    } else {
        a.mix.clone()
    };
    let memcpy = memcpy_gbs(std::time::Duration::from_millis(500));
    if !out.quiet {
        println!(
            "baser bench: one core per chain, {} s per measurement, median of {} runs",
            a.seconds, a.runs
        );
        println!("  memcpy reference on this machine: {memcpy:.1} GB/s");
        println!(
            "  {:<4} {:<18} {:>9} {:>17} {:>8} {:>8}",
            "", "mix", "Gb/s", "spread", "x 10G", "x 25G"
        );
    }
    let mut all = Vec::new();
    for mix in mixes {
        for m in run_mix(mix, time, a.runs) {
            if !out.quiet {
                println!(
                    "  {:<4} {:<18} {:>9.2} {:>7.2} .. {:<7.2} {:>8.2} {:>8.2}",
                    m.chain, m.mix, m.gbps, m.spread.0, m.spread.1, m.x_10g, m.x_25g
                );
            }
            all.push(m);
        }
    }
    if let Some(p) = &a.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            memcpy_gbs: f64,
            line_rate_gbps: f64,
            measurements: &'a [baser_engine::bench::Measurement],
        }
        let doc = Doc {
            memcpy_gbs: memcpy,
            line_rate_gbps: 10.3125,
            measurements: &all,
        };
        report::write_json(p, &doc).map_err(|e| Error::Output(p.clone(), e))?;
    }
    Ok(Verdict::Pass)
}
