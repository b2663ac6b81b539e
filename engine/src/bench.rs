//! Throughput of the model's chains, as `baser bench` and the criterion benches measure it:
//!
//! ```text
//! TX: frames -> TxChain (MacTx, PcsTx, TxGearbox<u64>) -> serial words
//! RX: serial words -> RxChain (BlockAligner, PcsRx, MacRx) -> frame counts
//! ```
//!
//! These are the chains `baser encode` and `baser decode` run, with sinks that keep nothing
//! instead of files. Throughput is line data: 66 bits per block, compared with the 10.3125
//! Gb/s line rate. Each chain runs on one core.

use crate::rx::{RxChain, RxInput, RxOptions};
use crate::tx::{TxBatch, TxChain, TxForms, TxOptions, TxSink};
use std::time::{Duration, Instant};

/// 10GBASE-R line rate, bit/s.
pub const LINE_RATE_10G: f64 = 10.3125e9;
/// 25GBASE-R line rate, bit/s.
pub const LINE_RATE_25G: f64 = 25.781_25e9;

/// Frame lengths (without FCS) for a traffic mix, from a fixed seed.
pub fn traffic(mix: Mix, count: usize) -> Vec<Vec<u8>> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..count)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = match mix {
                Mix::Min => 60,
                Mix::Max => 1514,
                Mix::Uniform => 60 + (x % 1455) as usize,
            };
            let mut f = vec![0u8; len];
            f[..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
            f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
            f[12..14].copy_from_slice(&[0x88, 0xb5]);
            for (k, b) in f[14..].iter_mut().enumerate() {
                *b = (k as u64 ^ x ^ i as u64) as u8;
            }
            f
        })
        .collect()
}

/// Frame length mixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// 64-octet frames (60 + FCS).
    Min,
    /// 1518-octet frames (1514 + FCS).
    Max,
    /// Uniform 64..=1518 octets.
    Uniform,
}

impl std::str::FromStr for Mix {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "min" => Ok(Self::Min),
            "max" => Ok(Self::Max),
            "uniform" => Ok(Self::Uniform),
            _ => Err(format!("unknown mix `{s}`: expected min, max or uniform")),
        }
    }
}

impl Mix {
    /// The mix's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Min => "64-octet",
            Self::Max => "1518-octet",
            Self::Uniform => "uniform 64..1518",
        }
    }
}

/// A sink that keeps nothing: it folds every serial word, so that nothing is optimised away.
#[derive(Default)]
pub struct FoldSink {
    /// The fold.
    pub check: u64,
}

impl TxSink for FoldSink {
    fn forms(&self) -> TxForms {
        TxForms {
            words: false,
            unscrambled: false,
            serial: true,
            line: false,
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        self.check ^= b.serial.iter().fold(0, |a, w| a ^ w);
        Ok(())
    }
}

/// Keeps the serial words.
#[derive(Default)]
pub struct SerialSink {
    /// The words.
    pub words: Vec<u64>,
}

impl TxSink for SerialSink {
    fn forms(&self) -> TxForms {
        TxForms {
            words: false,
            unscrambled: false,
            serial: true,
            line: false,
        }
    }

    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        self.words.extend_from_slice(b.serial);
        Ok(())
    }
}

/// The TX chain as users run it (`baser encode --bits` without the file), kept running.
pub struct TxChainBench {
    chain: TxChain<FoldSink>,
}

impl Default for TxChainBench {
    fn default() -> Self {
        let opt = TxOptions {
            idle_blocks: 0,
            ..TxOptions::default()
        };
        Self {
            chain: TxChain::new(&opt, FoldSink::default()),
        }
    }
}

impl TxChainBench {
    /// Sends frames; returns the line bits produced.
    pub fn run(&mut self, frames: &[Vec<u8>]) -> u64 {
        let before = self.chain.blocks();
        for f in frames {
            let _ = self.chain.frame(f, None);
        }
        (self.chain.blocks() - before) * 66
    }

    /// Sends 128 idles, the frames and a few idles, and keeps the serial words (input for the
    /// RX chain), a whole number of 64-bit words (a multiple of 32 blocks), so that the stream
    /// can be fed again and again without moving the block boundary.
    pub fn stream(frames: &[Vec<u8>]) -> Vec<u64> {
        let mut c = TxChain::new(&TxOptions::default(), SerialSink::default());
        for f in frames {
            let _ = c.frame(f, None);
        }
        c.idle(4);
        let n = c.blocks();
        c.idle((32 - n % 32) % 32);
        c.end().map(|(s, _)| s.words).unwrap_or_default()
    }
}

/// The RX chain as users run it (`baser decode x.bits` without the file), kept running.
pub struct RxChainBench {
    chain: RxChain<()>,
}

impl Default for RxChainBench {
    fn default() -> Self {
        Self {
            chain: RxChain::new(&RxOptions::default(), RxInput::Serial, ()),
        }
    }
}

impl RxChainBench {
    /// Receives serdes words; returns the line bits consumed.
    pub fn run(&mut self, serdes: &[u64]) -> u64 {
        let before = self.chain.blocks_received();
        self.chain.push_serial(serdes);
        (self.chain.blocks_received() - before) * 66
    }

    /// Frames received: good ones, and all others.
    pub fn frames(&self) -> (u64, u64) {
        let c = self.chain.counts();
        let ok = c.by_class.get("ok").copied().unwrap_or(0);
        (ok, c.total - ok)
    }

    /// Blocks received.
    pub fn blocks_in(&self) -> u64 {
        self.chain.blocks_received()
    }
}

/// One measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Measurement {
    /// `tx` or `rx`.
    pub chain: &'static str,
    /// The traffic mix.
    pub mix: &'static str,
    /// Line data rate achieved, Gb/s (median of the runs).
    pub gbps: f64,
    /// Slowest and fastest run, Gb/s.
    pub spread: (f64, f64),
    /// Multiple of the 10.3125 Gb/s line rate.
    pub x_10g: f64,
    /// Multiple of the 25.78125 Gb/s line rate.
    pub x_25g: f64,
}

/// Runs `f` (which returns line bits) repeatedly for about `time`, in `runs` separate timed
/// runs; returns the median and spread in Gb/s.
pub fn measure(time: Duration, runs: usize, mut f: impl FnMut() -> u64) -> (f64, f64, f64) {
    let per = time / runs.max(1) as u32;
    let mut rates: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            let mut bits = 0u64;
            while start.elapsed() < per {
                bits += f();
            }
            bits as f64 / start.elapsed().as_secs_f64() / 1e9
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    (rates[rates.len() / 2], rates[0], rates[rates.len() - 1])
}

/// memcpy bandwidth of this machine, GB/s (64 MiB copies), as a reference for the figures.
pub fn memcpy_gbs(time: Duration) -> f64 {
    let src = vec![0x5au8; 64 << 20];
    let mut dst = vec![0u8; 64 << 20];
    let start = Instant::now();
    let mut bytes = 0u64;
    while start.elapsed() < time {
        dst.copy_from_slice(&src);
        bytes += src.len() as u64;
        std::hint::black_box(&mut dst);
    }
    bytes as f64 / start.elapsed().as_secs_f64() / 1e9
}

/// A chain set up on a mix, kept running (the RX chain on the TX chain's serial words).
enum Runner<'a> {
    Tx(Box<TxChainBench>, &'a [Vec<u8>]),
    Rx(Box<RxChainBench>, Vec<u64>),
}

impl<'a> Runner<'a> {
    fn new(chain: Chain, frames: &'a [Vec<u8>]) -> Self {
        match chain {
            Chain::Tx => Self::Tx(Box::default(), frames),
            Chain::Rx => Self::Rx(Box::default(), TxChainBench::stream(frames)),
        }
    }

    /// One run over the frames; returns the line bits.
    fn run(&mut self) -> u64 {
        match self {
            Self::Tx(tx, frames) => tx.run(frames),
            Self::Rx(rx, stream) => rx.run(stream),
        }
    }
}

/// Measures the chains asked for on a mix.
pub fn run_mix(mix: Mix, time: Duration, runs: usize, chains: &[Chain]) -> Vec<Measurement> {
    let frames = traffic(mix, 2000);
    chains
        .iter()
        .map(|&chain| {
            let mut r = Runner::new(chain, &frames);
            let (gbps, lo, hi) = measure(time, runs, || r.run());
            std::hint::black_box(&r);
            Measurement {
                chain: chain.name(),
                mix: mix.name(),
                gbps,
                spread: (lo, hi),
                x_10g: gbps * 1e9 / LINE_RATE_10G,
                x_25g: gbps * 1e9 / LINE_RATE_25G,
            }
        })
        .collect()
}

/// Runs a chain `reps` times over `mix`'s 2,000 frames, untimed: a fixed amount of work, for
/// counting instructions (`baser bench --reps`). Returns the blocks the chain handled.
pub fn run_reps(mix: Mix, chain: Chain, reps: usize) -> u64 {
    let frames = traffic(mix, 2000);
    let mut r = Runner::new(chain, &frames);
    (0..reps).map(|_| r.run()).sum::<u64>() / 66
}

/// One of the two chains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// Frames to serial words.
    Tx,
    /// Serial words to frames.
    Rx,
}

impl std::str::FromStr for Chain {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tx" => Ok(Self::Tx),
            "rx" => Ok(Self::Rx),
            _ => Err(format!("unknown chain `{s}`: expected tx or rx")),
        }
    }
}

impl Chain {
    /// The chain's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tx => "tx",
            Self::Rx => "rx",
        }
    }
}

/// A 25G chain with a FEC below the PCS, as `baser bench --fec` times it: the TX chain with
/// the FEC encoder, or the RX chain below the FEC decoder on a line it made (error-free, or
/// with a bit error rate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FecChain {
    /// `tx` or `rx`.
    pub chain: Chain,
    /// `fc` or `rs`.
    pub fec: crate::fec::Fec,
    /// Line bit error rate (RX; 0: error-free).
    pub ber: f64,
}

impl FecChain {
    /// The rows `baser bench --fec` measures: both FECs' encoders and error-free receivers,
    /// and the Clause 74 receiver at a 1e-5 bit error rate.
    pub const ROWS: [Self; 5] = {
        use crate::fec::Fec;
        [
            Self {
                chain: Chain::Tx,
                fec: Fec::Fc,
                ber: 0.0,
            },
            Self {
                chain: Chain::Tx,
                fec: Fec::Rs,
                ber: 0.0,
            },
            Self {
                chain: Chain::Rx,
                fec: Fec::Fc,
                ber: 0.0,
            },
            Self {
                chain: Chain::Rx,
                fec: Fec::Rs,
                ber: 0.0,
            },
            Self {
                chain: Chain::Rx,
                fec: Fec::Fc,
                ber: 1e-5,
            },
        ]
    };

    /// The row's name, e.g. `rx fc ber 1e-5`.
    pub fn name(self) -> &'static str {
        use crate::fec::Fec;
        match (self.chain, self.fec, self.ber > 0.0) {
            (Chain::Tx, Fec::Rs, _) => "tx rs",
            (Chain::Tx, _, _) => "tx fc",
            (Chain::Rx, Fec::Rs, false) => "rx rs",
            (Chain::Rx, Fec::Rs, true) => "rx rs ber",
            (Chain::Rx, _, false) => "rx fc",
            (Chain::Rx, _, true) => "rx fc ber 1e-5",
        }
    }

    fn options(self) -> crate::Options {
        crate::Options {
            rate: crate::fec::Rate::G25,
            fec: crate::fec::FecOptions {
                kind: self.fec,
                ..crate::fec::FecOptions::default()
            },
            ..crate::Options::default()
        }
    }

    /// The line the TX chain makes of `frames`, whole FEC blocks (Clause 74: 32 blocks) or
    /// whole marker periods (RS-FEC: 81,916 blocks), so that it can be received again and
    /// again as one stream; with the row's bit errors.
    fn line(self, frames: &[Vec<u8>]) -> Vec<u8> {
        let opt = self.options();
        let enc = crate::fec::FecEncoder::new(&opt.fec).ok().flatten();
        let mut c = TxChain::with_fec(&opt.tx(), SerialSink::default(), enc);
        for f in frames {
            let _ = c.frame(f, None);
        }
        c.idle(4);
        let per = match self.fec {
            crate::fec::Fec::Rs => {
                let p = u64::from(opt.fec.rs.marker_period_codewords);
                fec_core::rs::BLOCKS_PER_MARKER_CODEWORD as u64
                    + (p - 1) * fec_core::rs::BLOCKS_PER_CODEWORD as u64
            }
            _ => fec_core::base_r::BLOCKS_PER_FEC_BLOCK as u64,
        };
        let n = c.blocks();
        c.idle((per - n % per) % per);
        let words = c.end().map(|(s, _)| s.words).unwrap_or_default();
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if self.ber > 0.0 {
            let _ = crate::inject::corrupt_line(
                &mut bytes,
                &[crate::inject::Fault::Ber(self.ber, 0x5eed)],
            );
        }
        bytes
    }

    /// Calls `f` with a closure that runs the row once over `mix`'s 2,000 frames (the TX
    /// chain sends them, the RX chain receives their line) and returns the line bits.
    fn with_runner<R>(self, mix: Mix, f: impl FnOnce(&mut dyn FnMut() -> u64) -> R) -> R {
        let frames = traffic(mix, 2000);
        let opt = self.options();
        match self.chain {
            Chain::Tx => {
                let tx = TxOptions {
                    idle_blocks: 0,
                    ..opt.tx()
                };
                let enc = crate::fec::FecEncoder::new(&opt.fec).ok().flatten();
                let mut chain = TxChain::with_fec(&tx, FoldSink::default(), enc);
                let r = f(&mut || {
                    let before = chain.blocks();
                    for fr in &frames {
                        let _ = chain.frame(fr, None);
                    }
                    (chain.blocks() - before) * 66
                });
                std::hint::black_box(&chain);
                r
            }
            Chain::Rx => {
                let line = self.line(&frames);
                let blocks = line.len() as u64 * 8 / 66;
                let chain = crate::fec::FecRxChain::new(&opt.rx(), &opt.fec, ());
                let mut chain = chain.ok();
                let r = f(&mut || {
                    chain.as_mut().map_or(0, |c| {
                        c.push_bytes(&line);
                        blocks * 66
                    })
                });
                std::hint::black_box(&chain);
                r
            }
        }
    }

    /// Times the row over `mix`: line bits per second as 66 bits per PCS block.
    pub fn measure(self, mix: Mix, time: Duration, runs: usize) -> Measurement {
        let r = self.with_runner(mix, |run| measure(time, runs, run));
        Measurement::of(self.name(), mix, r)
    }

    /// Runs the row `reps` times over `mix`, untimed: a fixed amount of work, for counting
    /// instructions (`baser bench --fec --reps`). Returns the PCS blocks it handled.
    pub fn run_reps(self, mix: Mix, reps: usize) -> u64 {
        self.with_runner(mix, |run| (0..reps).map(|_| run()).sum::<u64>() / 66)
    }
}

impl Measurement {
    fn of(chain: &'static str, mix: Mix, (gbps, lo, hi): (f64, f64, f64)) -> Self {
        Self {
            chain,
            mix: mix.name(),
            gbps,
            spread: (lo, hi),
            x_10g: gbps * 1e9 / LINE_RATE_10G,
            x_25g: gbps * 1e9 / LINE_RATE_25G,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rx_chain_receives_every_frame_the_tx_chain_sent() {
        for mix in [Mix::Min, Mix::Max, Mix::Uniform] {
            let frames = traffic(mix, 50);
            let stream = TxChainBench::stream(&frames);
            let mut rx = RxChainBench::default();
            let bits = rx.run(&stream);
            assert_eq!(bits, rx.blocks_in() * 66);
            // All 50 frames come back good (the idles give block lock time first).
            assert_eq!(rx.frames(), (50, 0), "{mix:?}");
            // And the stream runs twice through the same receiver: 100.
            rx.run(&stream);
            assert_eq!(rx.frames(), (100, 0), "{mix:?}");
        }
    }

    #[test]
    fn the_fec_rows_lines_are_received_again_and_again_without_losing_lock() {
        let frames = traffic(Mix::Uniform, 300);
        for row in FecChain::ROWS {
            if row.chain == Chain::Tx {
                continue;
            }
            let line = row.line(&frames);
            let opt = row.options();
            let mut rx = crate::fec::FecRxChain::new(&opt.rx(), &opt.fec, Vec::new()).unwrap();
            rx.push_bytes(&line);
            rx.push_bytes(&line);
            let (_, _, got, f) = rx.finish().unwrap();
            assert_eq!(f.lock.losses, 0, "{}: {f:?}", row.name());
            let ok = got.iter().filter(|r| r.class.is_ok()).count();
            if row.ber == 0.0 {
                assert_eq!((f.corrected_codewords, f.uncorrected_codewords), (0, 0));
                // Clause 74 tests its first FEC block before lock (the first pass's first
                // frame may be cut); RS-FEC confirms lock on the second pass's marker (a
                // receiver's two markers), so its first pass is not decoded.
                let passes = if row.fec == crate::fec::Fec::Rs { 1 } else { 2 };
                assert!(ok + 1 >= passes * frames.len(), "{}: {ok}", row.name());
            } else {
                assert!(f.corrected_codewords > 0, "{}: {f:?}", row.name());
            }
        }
        let names: Vec<&str> = FecChain::ROWS.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            ["tx fc", "tx rs", "rx fc", "rx rs", "rx fc ber 1e-5"]
        );
    }

    #[test]
    fn fixed_runs_handle_the_same_blocks_each_time() {
        for chain in [Chain::Tx, Chain::Rx] {
            let one = run_reps(Mix::Min, chain, 1);
            // 2,000 frames of 84 octets on the line: 10.5 blocks each (the RX stream has its
            // lead and tail idles too; the TX chain keeps its last half-filled block).
            assert!((20_990..21_400).contains(&one), "{chain:?}: {one}");
            let three = run_reps(Mix::Min, chain, 3);
            assert!(
                three.abs_diff(3 * one) <= 2,
                "{chain:?}: {three} vs 3 x {one}"
            );
        }
        assert_eq!("rx".parse::<Chain>(), Ok(Chain::Rx));
        assert!("both".parse::<Chain>().is_err());
    }

    #[test]
    fn the_tx_chain_counts_66_bits_per_block() {
        let frames = traffic(Mix::Min, 10);
        let mut tx = TxChainBench::default();
        let bits = tx.run(&frames);
        // 60 + 4 FCS + 8 preamble = 72 octets + 12 gap = 84 octets = 10.5 transfers per frame.
        assert_eq!(bits % 66, 0);
        assert!((100..=110).contains(&(bits / 66)), "{}", bits / 66);
    }
}
