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
    /// Frames per mix for the commands' measurement (`encode` to `.bits` and `.b66`,
    /// `decode` of both); 0 skips it.
    #[arg(long, default_value_t = 100_000)]
    pub cli_frames: usize,
    /// Folder for the commands' files (default: the system's temporary folder); they are
    /// removed at the end.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Chains: tx, rx (default: both).
    #[arg(long)]
    pub chain: Vec<baser_engine::bench::Chain>,
    /// Run each chain this many times over its mix's 2,000 frames, untimed, and print the
    /// blocks it handled (no commands): a fixed amount of work, for counting instructions
    /// (bench/instructions.sh).
    #[arg(long)]
    pub reps: Option<usize>,
    /// Also the 25G chains with a FEC below the PCS: the Clause 74 and RS-FEC encoders, their
    /// receivers on an error-free line, and the Clause 74 receiver at a 1e-5 bit error rate
    /// (as multiples of the 25.78125 Gb/s line rate).
    #[arg(long)]
    pub fec: bool,
    /// With `--fec --reps`: only these FEC rows (`tx fc`, `tx rs`, `rx fc`, `rx rs`,
    /// `rx fc ber 1e-5`; default: all), and not the chains without FEC.
    #[arg(long)]
    pub fec_row: Vec<String>,
}

/// One measurement of a command, end to end with its files.
#[derive(Clone, Debug, Serialize)]
pub struct CliMeasurement {
    /// The command, as run.
    pub command: String,
    /// The traffic mix.
    pub mix: &'static str,
    /// Line data rate achieved, Gb/s (median of the runs).
    pub gbps: f64,
    /// Slowest and fastest run, Gb/s.
    pub spread: (f64, f64),
    /// Multiple of the 10.3125 Gb/s line rate.
    pub x_10g: f64,
    /// This command's rate over its chain's (`tx` for encode, `rx` for decode).
    pub vs_chain: f64,
    /// Reading the command's input alone, in 64 KiB pieces, as a multiple of the line rate
    /// (median of the runs).
    pub read_x_10g: f64,
    /// Writing an output of the same size as the command's alone, in the same folder, through
    /// the commands' writing thread (median of the runs).
    pub write_x_10g: f64,
    /// What the command reaches at best: its thread reads and runs the chain while the writing
    /// thread writes, so the slower of `1 / (1 / read + 1 / chain)` and `write`.
    pub bound_x_10g: f64,
    /// The same work on one core, one thing after the other:
    /// `1 / (1 / read + 1 / write + 1 / chain)`.
    pub serial_bound_x_10g: f64,
}

/// Reads `input` in the 64 KiB pieces the commands read: a command's input alone.
fn read_work(input: &std::path::Path) -> Result<(), Error> {
    use std::io::Read;
    let mut buf = vec![0u8; 1 << 16];
    let mut f = std::fs::File::open(input)
        .map_err(|e| Error::Input(baser_files::InputError::io(input, &e)))?;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Input(baser_files::InputError::io(input, &e))),
        }
    }
}

/// Writes `out_len` octets to `scratch` (truncating what an earlier run left, as a command
/// does with its output) through the commands' own output file ([`crate::command::create`],
/// a writing thread), in 64 KiB pieces: a command's output alone.
fn write_work(out_len: u64, scratch: &std::path::Path) -> Result<(), Error> {
    use std::io::Write;
    let buf = vec![0u8; 1 << 16];
    let mut w = crate::command::create(scratch)?;
    let mut left = out_len;
    while left > 0 {
        let k = left.min(buf.len() as u64) as usize;
        w.write_all(buf.get(..k).unwrap_or_default())
            .map_err(|e| Error::Output(scratch.to_path_buf(), e))?;
        left -= k as u64;
    }
    w.flush()
        .map_err(|e| Error::Output(scratch.to_path_buf(), e))
}

/// Parses one command's arguments as the command line would.
#[derive(clap::Parser)]
struct One<A: clap::Args> {
    #[command(flatten)]
    args: A,
}

fn parse<A: clap::Args>(words: &[&str]) -> Result<A, Error> {
    use clap::Parser;
    One::<A>::try_parse_from(std::iter::once("baser").chain(words.iter().copied()))
        .map(|o| o.args)
        .map_err(|e| Error::Usage(e.to_string()))
}

/// Times `f` `runs` times; returns the median, slowest and fastest in seconds.
fn time_runs(
    runs: usize,
    mut f: impl FnMut() -> Result<(), Error>,
) -> Result<(f64, f64, f64), Error> {
    let mut t = Vec::new();
    for _ in 0..runs.max(1) {
        let start = std::time::Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok((t[t.len() / 2], t[t.len() - 1], t[0]))
}

/// The files of the commands' measurement and the commands themselves, as users run them:
/// `encode x.pcap --bits`, `decode x.bits --pcap`, `decode x.b66 --pcap`. `baser bench` and
/// the criterion bench `commands` both time these. The files are removed when it is dropped.
pub struct CommandFiles {
    pcap: PathBuf,
    bits: PathBuf,
    b66: PathBuf,
    out: PathBuf,
    scratch: PathBuf,
    enc: crate::cmd::encode::EncodeArgs,
    dec_bits: crate::cmd::decode::DecodeArgs,
    dec_b66: crate::cmd::decode::DecodeArgs,
    line_bits: u64,
}

const QUIET: Output = Output {
    quiet: true,
    verbose: 0,
};

impl CommandFiles {
    /// Writes `frames` frames of `mix` as a `.pcap` in `dir`, and encodes them to `.bits` and
    /// `.b66` (the decode commands' input).
    ///
    /// # Errors
    /// A file cannot be written.
    pub fn new(
        mix: baser_engine::bench::Mix,
        frames: usize,
        dir: &std::path::Path,
    ) -> Result<Self, Error> {
        use baser_files::pcap::FrameWriter;
        let name = |ext: &str| dir.join(format!("baser-bench-{}.{ext}", std::process::id()));
        let (pcap, bits, b66, out) = (name("pcap"), name("bits"), name("b66"), name("out.pcap"));
        let scratch = name("io");
        let s = |p: &PathBuf| p.display().to_string();
        let mut w = FrameWriter::new(crate::command::create(&pcap)?)
            .map_err(|e| Error::Output(pcap.clone(), e))?;
        for f in baser_engine::bench::traffic(mix, frames) {
            w.write(std::time::Duration::ZERO, &f)
                .map_err(|e| Error::Output(pcap.clone(), e))?;
        }
        w.finish().map_err(|e| Error::Output(pcap.clone(), e))?;
        let mut c = Self {
            enc: parse(&[&s(&pcap), "--bits", &s(&bits)])?,
            dec_bits: parse(&[&s(&bits), "--pcap", &s(&out)])?,
            dec_b66: parse(&[&s(&b66), "--pcap", &s(&out)])?,
            pcap,
            bits,
            b66,
            out,
            scratch,
            line_bits: 0,
        };
        let enc_b66: crate::cmd::encode::EncodeArgs = parse(&[&s(&c.pcap), "--b66", &s(&c.b66)])?;
        crate::cmd::encode::encode(&enc_b66, QUIET)?;
        c.encode_bits()?;
        c.line_bits = std::fs::metadata(&c.bits).map_or(0, |m| m.len() * 8);
        Ok(c)
    }

    /// Line bits in the stream (the `.bits` file's size).
    pub fn line_bits(&self) -> u64 {
        self.line_bits
    }

    /// `baser encode x.pcap --bits x.bits`.
    ///
    /// # Errors
    /// As the command.
    pub fn encode_bits(&self) -> Result<(), Error> {
        crate::cmd::encode::encode(&self.enc, QUIET).map(|_| ())
    }

    /// `baser decode x.bits --pcap out.pcap`.
    ///
    /// # Errors
    /// As the command.
    pub fn decode_bits(&self) -> Result<(), Error> {
        crate::cmd::decode::decode(&self.dec_bits, QUIET).map(|_| ())
    }

    /// `baser decode x.b66 --pcap out.pcap`.
    ///
    /// # Errors
    /// As the command.
    pub fn decode_b66(&self) -> Result<(), Error> {
        crate::cmd::decode::decode(&self.dec_b66, QUIET).map(|_| ())
    }
}

impl Drop for CommandFiles {
    fn drop(&mut self) {
        for p in [&self.pcap, &self.bits, &self.b66, &self.out, &self.scratch] {
            std::fs::remove_file(p).ok();
        }
    }
}

/// The commands users run on a mix, end to end with their files.
fn run_commands(
    mix: baser_engine::bench::Mix,
    frames: usize,
    runs: usize,
    dir: &std::path::Path,
    chains: &[baser_engine::bench::Measurement],
) -> Result<Vec<CliMeasurement>, Error> {
    let files = CommandFiles::new(mix, frames, dir)?;
    let line_bits = files.line_bits().max(1) as f64;
    let chain = |c: &str| {
        chains
            .iter()
            .find(|m| m.chain == c && m.mix == mix.name())
            .map(|m| m.gbps)
    };
    // Each command, its input, the size of its output (a decode writes the frames of the
    // pcap it was encoded from) and its chain.
    let pcap_len = std::fs::metadata(&files.pcap).map_or(0, |m| m.len());
    type Run = fn(&CommandFiles) -> Result<(), Error>;
    let commands: [(&str, Run, &std::path::Path, u64, &str); 3] = [
        (
            "encode .pcap --bits",
            CommandFiles::encode_bits,
            &files.pcap,
            files.line_bits / 8,
            "tx",
        ),
        (
            "decode .bits --pcap",
            CommandFiles::decode_bits,
            &files.bits,
            pcap_len,
            "rx",
        ),
        (
            "decode .b66 --pcap",
            CommandFiles::decode_b66,
            &files.b66,
            pcap_len,
            "rx",
        ),
    ];
    let mut rows = Vec::new();
    for (command, run, input, out_len, c) in commands {
        // A command whose chain was not measured (`--chain`) is not run.
        let Some(chain_gbps) = chain(c) else {
            continue;
        };
        let t = time_runs(runs, || run(&files))?;
        let read = time_runs(runs, || read_work(input))?;
        let write = time_runs(runs, || write_work(out_len, &files.scratch))?;
        let x = |seconds: f64| line_bits / seconds / 1e9 / 10.3125;
        let (x_10g, chain_x) = (x(t.0), chain_gbps / 10.3125);
        let (read_x, write_x) = (x(read.0), x(write.0));
        rows.push(CliMeasurement {
            command: command.into(),
            mix: mix.name(),
            gbps: x_10g * 10.3125,
            spread: (line_bits / t.1 / 1e9, line_bits / t.2 / 1e9),
            x_10g,
            vs_chain: x_10g / chain_x,
            read_x_10g: read_x,
            write_x_10g: write_x,
            bound_x_10g: write_x.min(1.0 / (1.0 / read_x + 1.0 / chain_x)),
            serial_bound_x_10g: 1.0 / (1.0 / read_x + 1.0 / write_x + 1.0 / chain_x),
        });
    }
    Ok(rows)
}

/// The 25G chains with a FEC (`--fec`), each printed as it is measured.
fn fec_rows(
    mixes: &[baser_engine::bench::Mix],
    time: std::time::Duration,
    runs: usize,
    out: Output,
) -> Vec<baser_engine::bench::Measurement> {
    use baser_engine::bench::FecChain;
    if !out.quiet {
        println!(
            "  the 25G chains with a FEC below the PCS (x 25G: of the 25.78125 Gb/s line rate):"
        );
    }
    let mut rows = Vec::new();
    for &mix in mixes {
        for row in FecChain::ROWS {
            let m = row.measure(mix, time, runs);
            if !out.quiet {
                println!(
                    "  {:<15} {:<18} {:>9.2} {:>7.2} .. {:<7.2} {:>8.2} {:>8.2}",
                    m.chain, m.mix, m.gbps, m.spread.0, m.spread.1, m.x_10g, m.x_25g
                );
            }
            rows.push(m);
        }
    }
    rows
}

/// `baser bench`: TX and RX chain throughput as multiples of the line rate.
///
/// # Errors
/// The JSON file cannot be written.
pub fn bench(a: &BenchArgs, out: Output) -> Result<Verdict, Error> {
    use baser_engine::bench::{memcpy_gbs, run_mix, run_reps, Chain, Mix};
    crate::command::check_outputs(&[], &[a.json.as_deref()])?;
    let time = std::time::Duration::from_secs_f64(a.seconds.max(0.1));
    let mixes = if a.mix.is_empty() {
        vec![Mix::Uniform, Mix::Min, Mix::Max]
    } else {
        a.mix.clone()
    };
    let chains = if a.chain.is_empty() {
        vec![Chain::Tx, Chain::Rx]
    } else {
        a.chain.clone()
    };
    if let Some(reps) = a.reps {
        for &mix in &mixes {
            let rows = baser_engine::bench::FecChain::ROWS.into_iter().filter(|r| {
                a.fec
                    && chains.contains(&r.chain)
                    && (a.fec_row.is_empty() || a.fec_row.iter().any(|n| n == r.name()))
            });
            for row in rows {
                let blocks = row.run_reps(mix, reps);
                if !out.quiet {
                    println!(
                        "{} {}: {reps} runs, {blocks} blocks",
                        row.name(),
                        mix.name()
                    );
                }
            }
            if a.fec {
                continue;
            }
            for &chain in &chains {
                let blocks = run_reps(mix, chain, reps);
                if !out.quiet {
                    println!(
                        "{} {}: {reps} runs, {blocks} blocks",
                        chain.name(),
                        mix.name()
                    );
                }
            }
        }
        return Ok(Verdict::Pass);
    }
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
    for &mix in &mixes {
        for m in run_mix(mix, time, a.runs, &chains) {
            if !out.quiet {
                println!(
                    "  {:<4} {:<18} {:>9.2} {:>7.2} .. {:<7.2} {:>8.2} {:>8.2}",
                    m.chain, m.mix, m.gbps, m.spread.0, m.spread.1, m.x_10g, m.x_25g
                );
            }
            all.push(m);
        }
    }
    let fec = if a.fec {
        fec_rows(&mixes, time, a.runs, out)
    } else {
        Vec::new()
    };
    let mut cli = Vec::new();
    if a.cli_frames > 0 {
        let dir = a.dir.clone().unwrap_or_else(std::env::temp_dir);
        if !out.quiet {
            println!(
                "  the commands, end to end with their files in {} ({} frames per mix, median of {} runs):",
                dir.display(),
                a.cli_frames,
                a.runs
            );
            println!(
                "  {:<22} {:<18} {:>9} {:>17} {:>8} {:>9} {:>6} {:>6} {:>6} {:>6}",
                "command",
                "mix",
                "Gb/s",
                "spread",
                "x 10G",
                "vs chain",
                "read",
                "write",
                "bound",
                "serial"
            );
        }
        for &mix in &mixes {
            for m in run_commands(mix, a.cli_frames, a.runs, &dir, &all)? {
                if !out.quiet {
                    println!(
                        "  {:<22} {:<18} {:>9.2} {:>7.2} .. {:<7.2} {:>8.2} {:>9.2} {:>6.2} {:>6.2} {:>6.2} {:>6.2}",
                        m.command,
                        m.mix,
                        m.gbps,
                        m.spread.0,
                        m.spread.1,
                        m.x_10g,
                        m.vs_chain,
                        m.read_x_10g,
                        m.write_x_10g,
                        m.bound_x_10g,
                        m.serial_bound_x_10g
                    );
                }
                cli.push(m);
            }
        }
    }
    if !out.quiet && !cli.is_empty() {
        println!(
            "  read, write: the input read and the output written alone, no model (x 10G); \
             bound: the command at best, its thread reading and running the chain while its \
             writing thread writes; serial: the same on one core, one after the other"
        );
    }
    if let Some(p) = &a.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            memcpy_gbs: f64,
            line_rate_gbps: f64,
            measurements: &'a [baser_engine::bench::Measurement],
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            fec: &'a [baser_engine::bench::Measurement],
            commands: &'a [CliMeasurement],
        }
        let doc = Doc {
            memcpy_gbs: memcpy,
            line_rate_gbps: 10.3125,
            measurements: &all,
            fec: &fec,
            commands: &cli,
        };
        report::write_json(p, &doc).map_err(|e| Error::Output(p.clone(), e))?;
    }
    Ok(Verdict::Pass)
}
