//! `baser`: golden-model checks of 10GBASE-R MAC/PCS streams for FPGA CI.
//!
//! Exit status: 0 all good; 1 the DUT diverged from the model (or a decoded stream held
//! errors); 2 bad usage or unreadable input, with a message naming the file and line.

use baser_engine::Profile;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use testbench::{cli, pcs_check};

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
    /// More detail (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Frames (or an XGMII trace) through MAC TX, PCS encode, scrambler and gearbox.
    Encode(cli::EncodeArgs),
    /// A DUT stream (.bits, .b66 or .xgmii) back to XGMII and frames, with a summary.
    Decode(cli::DecodeArgs),
    /// Compare what a DUT produced with what the model says must come out.
    Check(CheckArgs),
    /// TX and RX chain throughput as multiples of the 10.3125 Gb/s line rate.
    Bench(cli::BenchArgs),
    /// Push a pcap out of a port, capture what comes back, judge every frame.
    Wire(Box<testbench::wire::WireArgs>),
    /// Software stand-in for the DUT: return every frame, with optional faults.
    Reflect(testbench::wire::reflect::ReflectArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Expected frames (pcap/pcapng): frame-level check of the DUT stream.
    #[arg(long, conflicts_with = "xgmii")]
    frames: Option<PathBuf>,
    /// XGMII input given to the DUT: PCS-level, bit-exact check of the DUT's blocks.
    #[arg(long)]
    xgmii: Option<PathBuf>,
    /// What the DUT produced: .b66, .bits or .xgmii (.b66 only with --xgmii).
    #[arg(long)]
    dut: PathBuf,
    /// Also compare the DUT's 66-bit stream with the model's encoding, bit for bit.
    #[arg(long, requires = "frames")]
    blocks: bool,
    /// The captures include the FCS.
    #[arg(long)]
    fcs_included: bool,
    /// Compatibility profile.
    #[arg(long, value_parser = cli::profile_parser(), default_value_t = Profile::Ieee)]
    profile: Profile,
    /// Skip this many leading DUT blocks (pipeline latency of the dump; --xgmii only).
    #[arg(long, default_value_t = 0)]
    dut_offset: u64,
    /// Divergences shown in detail.
    #[arg(long, default_value_t = 10)]
    max_report: usize,
    /// Write the JSON report here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the JUnit XML report here.
    #[arg(long)]
    junit: Option<PathBuf>,
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
    let out = cli::Output {
        quiet: args.quiet,
        verbose: args.verbose,
    };
    let result = match args.command {
        Command::Encode(a) => cli::encode(&a, out),
        Command::Decode(a) => cli::decode(&a, out),
        Command::Check(a) => check(a, out),
        Command::Bench(a) => cli::bench(&a, out),
        Command::Wire(a) => testbench::wire::run(&a, out),
        Command::Reflect(a) => testbench::wire::reflect::run(&a, out),
    };
    match result {
        Ok(cli::Verdict::Pass) => ExitCode::SUCCESS,
        Ok(cli::Verdict::Fail) => ExitCode::from(1),
        Err(e) => {
            eprintln!("baser: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(a: CheckArgs, out: cli::Output) -> Result<cli::Verdict, cli::Error> {
    let reports = cli::Reports {
        json: a.json,
        junit: a.junit,
        max_report: a.max_report,
    };
    match (a.frames, a.xgmii) {
        (None, Some(xgmii)) => {
            if cli::kind_of(&a.dut)? != cli::Kind::B66 {
                return Err(cli::Error::Usage(format!(
                    "{}: --xgmii checks a .b66 DUT stream",
                    a.dut.display()
                )));
            }
            let opt = pcs_check::PcsCheckOptions {
                xgmii,
                dut: a.dut,
                profile: a.profile,
                dut_offset: a.dut_offset,
                max_report: a.max_report,
            };
            let (rep, cases) = pcs_check::run(&opt)?;
            cli::finish_pcs_check(&rep, &cases, &reports, out)
        }
        (Some(frames), None) => {
            let opt = cli::FrameCheckArgs {
                frames,
                dut: a.dut,
                blocks: a.blocks,
                fcs_included: a.fcs_included,
                profile: a.profile,
            };
            cli::check_frames(&opt, &reports, out)
        }
        _ => Err(cli::Error::Usage(
            "check needs --frames EXPECTED.pcap or --xgmii INPUT.xgmii, and --dut".into(),
        )),
    }
}
