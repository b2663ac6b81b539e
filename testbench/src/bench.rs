//! Throughput of the model's chains, as `baser bench` and the criterion benches measure it:
//!
//! ```text
//! TX: frames -> MacTx (pad, FCS, IFG + DIC) -> PcsTx (encode, scramble) -> TxGearbox<u64>
//! RX: u64 serdes words -> BlockAligner (lock) -> PcsRx (BER, descramble, decode) -> MacRx (FCS)
//! ```
//!
//! Throughput is line data: 66 bits per block, compared with the 10.3125 Gb/s line rate. Each
//! chain runs on one core, whole slices at a time; nothing is written to files.

use crate::fcs::MacRx;
use crate::fcs::MacTx;
use mac_core::tx::TxConfig;
use pcs_core::gearbox::TxGearbox;
use pcs_core::lock::{AlignedBlock, BlockAligner};
use pcs_core::pcs::{PcsRx, PcsRxConfig, PcsTx};
use pcs_core::{Block, XgmiiWord};
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mix {
    /// 64-octet frames (60 + FCS).
    Min,
    /// 1518-octet frames (1514 + FCS).
    Max,
    /// Uniform 64..=1518 octets.
    Uniform,
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

/// The TX chain with its buffers.
pub struct TxChainBench {
    mac: MacTx,
    pcs: PcsTx,
    gearbox: TxGearbox<u64>,
    words: Vec<XgmiiWord>,
    blocks: Vec<Block>,
    out: Vec<u64>,
    /// Blocks produced.
    pub blocks_out: u64,
    /// A fold of every output word, so that nothing is optimised away.
    pub check: u64,
}

impl Default for TxChainBench {
    fn default() -> Self {
        Self {
            mac: MacTx::with_engine(TxConfig::default()),
            pcs: PcsTx::new(Default::default(), pcs_core::scramble::DEFAULT_STATE),
            gearbox: TxGearbox::new(),
            words: vec![XgmiiWord::IDLE; 4096],
            blocks: vec![Block::IDLE; 4096],
            out: vec![0; 8192],
            blocks_out: 0,
            check: 0,
        }
    }
}

impl TxChainBench {
    /// Sends frames; returns the line bits produced. The MAC fills a batch of transfers, which
    /// then goes through the PCS and the gearbox as whole slices.
    pub fn run(&mut self, frames: &[Vec<u8>]) -> u64 {
        let before = self.blocks_out;
        let mut n = 0;
        for f in frames {
            if self.words.len() - n < self.mac.words_needed(f.len()) {
                self.flush(n);
                n = 0;
            }
            n += self.mac.encode_frame(f, &mut self.words[n..]).unwrap_or(0);
        }
        self.flush(n);
        (self.blocks_out - before) * 66
    }

    /// Takes the first `n` transfers through the PCS and the gearbox.
    fn flush(&mut self, n: usize) {
        let n = self
            .pcs
            .encode_slice(&self.words[..n], &mut self.blocks[..n]);
        let mut done = 0;
        while done < n {
            let p = self
                .gearbox
                .push_blocks(&self.blocks[done..n], &mut self.out);
            self.check ^= self.out[..p.produced].iter().fold(0, |a, w| a ^ w);
            done += p.consumed;
        }
        self.blocks_out += n as u64;
    }

    /// Sends frames and idles and keeps the serdes words (input for the RX chain).
    pub fn stream(frames: &[Vec<u8>]) -> Vec<u64> {
        let mut c = Self::default();
        let mut all = Vec::new();
        let mut idle = vec![XgmiiWord::IDLE; 128];
        c.mac.idle(&mut idle);
        let emit = |c: &mut Self, words: &[XgmiiWord], all: &mut Vec<u64>| {
            let mut blocks = vec![Block::IDLE; words.len()];
            c.pcs.encode_slice(words, &mut blocks);
            for b in blocks {
                all.extend(c.gearbox.push_block(b));
            }
        };
        emit(&mut c, &idle, &mut all);
        for f in frames {
            let n = c.mac.encode_frame(f, &mut c.words).unwrap_or(0);
            let words = c.words[..n].to_vec();
            emit(&mut c, &words, &mut all);
        }
        emit(&mut c, &[XgmiiWord::IDLE; 4], &mut all);
        // Whole 64-bit words only (a multiple of 32 blocks), so that the stream can be fed
        // again and again without moving the block boundary.
        while c.gearbox.pending_bits() != 0 {
            emit(&mut c, &[XgmiiWord::IDLE], &mut all);
        }
        all
    }
}

/// The RX chain with its buffers.
pub struct RxChainBench {
    aligner: BlockAligner<u64>,
    pcs: PcsRx,
    mac: MacRx,
    aligned: Vec<AlignedBlock>,
    blocks: Vec<Block>,
    words: Vec<XgmiiWord>,
    /// Good frames received.
    pub frames_ok: u64,
    /// Other frames.
    pub frames_bad: u64,
    /// Blocks received.
    pub blocks_in: u64,
}

impl Default for RxChainBench {
    fn default() -> Self {
        Self {
            aligner: BlockAligner::new(),
            pcs: PcsRx::new(PcsRxConfig::default()),
            mac: MacRx::with_engine(Default::default()),
            aligned: vec![
                AlignedBlock {
                    block: Block::IDLE,
                    bit_offset: 0,
                    block_lock: false,
                    action: pcs_core::lock::LockAction::Hold,
                };
                // Small batches stay in the L1 cache.
                256
            ],
            blocks: vec![Block::IDLE; 513],
            words: vec![XgmiiWord::IDLE; 514],
            frames_ok: 0,
            frames_bad: 0,
            blocks_in: 0,
        }
    }
}

impl RxChainBench {
    /// Receives serdes words; returns the line bits consumed. While locked, the aligner cuts
    /// plain blocks in batches that go through the receive PCS as one slice; before lock (and
    /// after a loss of lock) every block goes through with its own lock status.
    pub fn run(&mut self, serdes: &[u64]) -> u64 {
        let before = self.blocks_in;
        let mut rest = serdes;
        while !rest.is_empty() {
            let r = self.aligner.push_words_locked(rest, &mut self.blocks);
            let (consumed, produced, n) = if r.consumed > 0 || r.produced > 0 {
                let locked = r.produced - usize::from(r.lost_lock);
                let (_, mut n) =
                    self.pcs
                        .decode_slice(&self.blocks[..locked], true, &mut self.words);
                if r.lost_lock {
                    if let Some(w) = self.pcs.push_word(self.blocks[locked], false) {
                        self.words[n] = w;
                        n += 1;
                    }
                }
                (r.consumed, r.produced, n)
            } else {
                let p = self.aligner.push_words(rest, &mut self.aligned);
                let mut n = 0;
                for a in &self.aligned[..p.produced] {
                    if let Some(w) = self.pcs.push_word(a.block, a.block_lock) {
                        self.words[n] = w;
                        n += 1;
                    }
                }
                (p.consumed, p.produced, n)
            };
            rest = &rest[consumed..];
            self.blocks_in += produced as u64;
            let (ok, bad) = (&mut self.frames_ok, &mut self.frames_bad);
            self.mac.push_slice(&self.words[..n], |f| {
                if f.class.is_ok() {
                    *ok += 1;
                } else {
                    *bad += 1;
                }
            });
            if consumed == 0 && produced == 0 {
                break;
            }
        }
        (self.blocks_in - before) * 66
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

/// Measures both chains on a mix.
pub fn run_mix(mix: Mix, time: Duration, runs: usize) -> [Measurement; 2] {
    let frames = traffic(mix, 2000);
    let mut tx = TxChainBench::default();
    let (gbps, lo, hi) = measure(time, runs, || tx.run(&frames));
    std::hint::black_box(tx.check);
    let m = |chain, gbps: f64, lo, hi| Measurement {
        chain,
        mix: mix.name(),
        gbps,
        spread: (lo, hi),
        x_10g: gbps * 1e9 / LINE_RATE_10G,
        x_25g: gbps * 1e9 / LINE_RATE_25G,
    };
    let txm = m("tx", gbps, lo, hi);
    let stream = TxChainBench::stream(&frames);
    let mut rx = RxChainBench::default();
    let (gbps, lo, hi) = measure(time, runs, || rx.run(&stream));
    [txm, m("rx", gbps, lo, hi)]
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
            assert_eq!(bits, rx.blocks_in * 66);
            // All 50 frames come back good (the idles give block lock time first).
            assert_eq!((rx.frames_ok, rx.frames_bad), (50, 0), "{mix:?}");
            // And the stream runs twice through the same receiver: 100.
            rx.run(&stream);
            assert_eq!((rx.frames_ok, rx.frames_bad), (100, 0), "{mix:?}");
        }
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
