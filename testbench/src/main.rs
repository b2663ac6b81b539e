//! `baser`: golden-model checks of 10GBASE-R MAC/PCS streams for FPGA CI.
//!
//! Exit status: 0 all good; 1 the DUT diverged from the model (or a decoded stream held
//! errors); 2 bad usage or unreadable input, with a message naming the file and line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use testbench::cmd;
use testbench::command::{Output, Verdict};

#[derive(Parser)]
#[command(
    name = "baser",
    version,
    about = "Golden model of the 10GBASE-R PCS (IEEE 802.3 Clause 49) and 10G MAC/RS (Clauses 4, 46)"
)]
struct Args {
    /// Print nothing but errors.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// More detail: every frame sent (encode) or received (decode), every passing case (check).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Frames (or an XGMII trace) through MAC TX, PCS encode, scrambler and gearbox.
    Encode(cmd::encode::EncodeArgs),
    /// A DUT stream (.bits, .b66 or .xgmii) back to XGMII and frames, with a summary.
    Decode(cmd::decode::DecodeArgs),
    /// Compare what a DUT produced with what the model says must come out.
    Check(cmd::check::CheckArgs),
    /// A stream file into another form: .b66 (scrambled or not), .bits, .xgmii.
    Convert(cmd::convert::ConvertArgs),
    /// Functional coverage of streams (Clauses 49 and 46), merged: the holes, and JSON.
    Coverage(cmd::coverage::CoverageArgs),
    /// Reproducible stimulus from a seed, with the outcome the standard demands.
    Gen(cmd::gen::GenArgs),
    /// TX and RX chain throughput as multiples of the 10.3125 Gb/s line rate.
    Bench(cmd::bench::BenchArgs),
    /// Push a pcap out of a port, capture what comes back, judge every frame.
    Wire(Box<testbench::wire::WireArgs>),
    /// Software stand-in for the DUT: return every frame, with optional faults.
    Reflect(testbench::wire::reflect::ReflectArgs),
}

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when stdout is closed early (`| head`)
    // instead of failing on EPIPE.
    // SAFETY: setting a signal's disposition to the default, before any thread exists.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args = Args::parse();
    let out = Output {
        quiet: args.quiet,
        verbose: args.verbose,
    };
    let result = match args.command {
        Command::Encode(a) => cmd::encode::encode(&a, out),
        Command::Decode(a) => cmd::decode::decode(&a, out),
        Command::Check(a) => cmd::check::check(a, out),
        Command::Convert(a) => cmd::convert::convert(&a, out),
        Command::Coverage(a) => cmd::coverage::coverage(&a, out),
        Command::Gen(a) => cmd::gen::gen(&a, out),
        Command::Bench(a) => cmd::bench::bench(&a, out),
        Command::Wire(a) => testbench::wire::run(&a, out),
        Command::Reflect(a) => testbench::wire::reflect::run(&a, out),
    };
    match result {
        Ok(Verdict::Pass) => ExitCode::SUCCESS,
        Ok(Verdict::Fail) => ExitCode::from(1),
        Err(e) => {
            eprintln!("baser: {e}");
            ExitCode::from(2)
        }
    }
}
