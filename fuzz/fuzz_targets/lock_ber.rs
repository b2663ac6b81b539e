//! Arbitrary bits through block lock (`BlockAligner`) and the BER monitor.
//!
//! Input: one knob byte (BER lock-loss reset, BER config), three bytes of BER window
//! (ticks per block 1..=4, window ticks 1..=1024, threshold 1..=16), then the received bit
//! stream (bit 0 of byte 0 first on the wire).
//!
//! Invariants (block lock):
//! - blocks are 66 bits apart, 67 after a slip; the first starts at bit 0; every block that
//!   fits in the stream is cut, and its 66 bits are the stream's bits at its offset (read
//!   bit by bit here);
//! - slips and `block_lock` equal an independent reference of the lock diagram: unlocked,
//!   every invalid header slips and 64 valid headers in a row lock; locked, headers are
//!   counted in windows of 64 and the 16th invalid header of a window slips and unlocks. So a
//!   slip happens only on an invalid header, and lock implies the last 64 headers were valid
//!   when it rose;
//! - the aligner gives the same blocks fed with 16-, 32- and 64-bit serdes words, and the
//!   locked fast path (`push_words_locked`) the same blocks and lock status as block by block.
//!
//! Invariants (BER monitor, fed the aligned headers and lock status):
//! - `ber_bad_sh` only on an invalid header (and while locked, with the strict reset);
//! - per window, `ber_bad_sh` steps <= threshold, and `ber_cnt` equals them;
//! - `hi_ber` == (this window reached the threshold) || (the previous one did), windows
//!   restart on loss of lock (strict reset) and `hi_ber` is false while unlocked;
//! - a window holds ceil(W / t) headers after a (re)start, then floor or ceil of it.
#![no_main]

use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use pcs_core::LockAction;
use pcs_core::{bits_to_block, SerdesWord};
use pcs_core::{AlignedBlock, BlockAligner};
use pcs_core::{BerConfig, BerMonitor, LockLossReset};

/// The lock diagram reduced to its counters (Fig. 49-14 as described in `lock.rs`).
struct RefLock {
    locked: bool,
    count: u32,
    invalid: u32,
}

impl RefLock {
    /// Tests one header; returns whether it slips.
    fn step(&mut self, valid: bool) -> bool {
        self.count += 1;
        if !valid {
            self.invalid += 1;
        }
        let slip = !valid && (!self.locked || self.invalid >= 16);
        if slip {
            self.locked = false;
            self.count = 0;
            self.invalid = 0;
        } else if self.count == 64 {
            if self.invalid == 0 {
                self.locked = true;
            }
            self.count = 0;
            self.invalid = 0;
        }
        slip
    }
}

/// Bit `i` of the stream.
fn bit(stream: &[u8], i: u64) -> u128 {
    u128::from(stream[(i / 8) as usize] >> (i % 8) & 1)
}

fn align<W: SerdesWord>(stream: &[u8]) -> Vec<AlignedBlock> {
    let n = (W::BITS / 8) as usize;
    let words: Vec<W> = stream
        .chunks_exact(n)
        .map(|c| {
            let v = c.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
            W::from_u64_truncating(v)
        })
        .collect();
    let mut aligner = BlockAligner::<W>::new();
    aligner.blocks(&words).collect()
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let knobs = input.u8();
    let (t, w, th) = (input.u8(), input.u16(), input.u8());
    let stream = input.rest();
    let lock_loss = if knobs & 1 == 0 {
        LockLossReset::ResetMonitor
    } else {
        LockLossReset::KeepRunning
    };
    let config = if knobs & 2 == 0 {
        BerConfig {
            ticks_per_block: u32::from(t % 4) + 1,
            window_ticks: u32::from(w % 1024) + 1,
            threshold: u16::from(th % 16) + 1,
        }
    } else {
        BerConfig::TEN_GBASE_R
    };

    // Block lock on bytes.
    let total_bits = stream.len() as u64 * 8;
    let mut aligner = BlockAligner::<u8>::new();
    let blocks: Vec<AlignedBlock> = aligner.blocks(stream).collect();
    let mut reference = RefLock {
        locked: false,
        count: 0,
        invalid: 0,
    };
    let mut next_offset = 0u64;
    let mut slips = 0u64;
    let mut valid_run = 0u32;
    let mut was_locked = false;
    for (i, b) in blocks.iter().enumerate() {
        assert_eq!(b.bit_offset, next_offset, "block {i}");
        assert!(b.bit_offset + 66 <= total_bits, "block {i} past the end");
        let bits = (0..66).fold(0u128, |acc, k| acc | bit(stream, b.bit_offset + k) << k);
        assert_eq!(
            b.block,
            bits_to_block(bits),
            "block {i}: not the stream's bits"
        );
        let valid = b.block.sync.is_valid();
        let slip = reference.step(valid);
        assert_eq!(b.action == LockAction::SlipOneBit, slip, "block {i}: slip");
        assert_eq!(b.block_lock, reference.locked, "block {i}: block_lock");
        if slip {
            assert!(!valid, "block {i}: slip on a valid header");
            slips += 1;
        }
        valid_run = if valid { valid_run + 1 } else { 0 };
        if b.block_lock && !was_locked {
            assert!(
                valid_run >= 64,
                "block {i}: lock after {valid_run} valid headers"
            );
        }
        was_locked = b.block_lock;
        next_offset = b.bit_offset + 66 + u64::from(slip);
    }
    assert!(
        next_offset + 66 > total_bits,
        "a whole block was left uncut"
    );
    assert_eq!(aligner.slips(), slips);
    assert_eq!(aligner.lock().block_lock(), reference.locked);

    // Same blocks from wider serdes words (over the prefix they cover).
    fn same_prefix<W: SerdesWord>(stream: &[u8], blocks: &[AlignedBlock]) {
        let covered = (stream.len() / (W::BITS as usize / 8)) as u64 * u64::from(W::BITS);
        let wide = align::<W>(stream);
        let narrow: Vec<&AlignedBlock> = blocks
            .iter()
            .filter(|b| b.bit_offset + 66 <= covered)
            .collect();
        assert_eq!(wide.len(), narrow.len(), "{}-bit words", W::BITS);
        for (a, b) in wide.iter().zip(narrow) {
            assert_eq!(a, b, "{}-bit words", W::BITS);
        }
    }
    same_prefix::<u16>(stream, &blocks);
    same_prefix::<u32>(stream, &blocks);
    same_prefix::<u64>(stream, &blocks);

    // The locked fast path (blocks cut by position, steady headers counted in runs) gives the
    // same blocks and lock status as block by block, over the prefix of whole 64-bit words.
    {
        let words: Vec<u64> = stream
            .chunks_exact(8)
            .map(|c| c.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b)))
            .collect();
        let covered = words.len() as u64 * 64;
        let want: Vec<(pcs_core::Block, bool)> = blocks
            .iter()
            .filter(|b| b.bit_offset + 66 <= covered)
            .map(|b| (b.block, b.block_lock))
            .collect();
        let mut fast = BlockAligner::<u64>::new();
        let mut got = Vec::new();
        let mut out = vec![pcs_core::Block::IDLE; 100];
        let mut rest: &[u64] = &words;
        let mut room = 1 + stream.len() % 97;
        loop {
            if fast.lock().block_lock() {
                let r = fast.push_words_locked(rest, &mut out[..room.min(100)]);
                for (i, &b) in out[..r.produced].iter().enumerate() {
                    got.push((b, !(r.lost_lock && i + 1 == r.produced)));
                }
                rest = &rest[r.consumed..];
                room = 1 + (room * 7 + r.produced) % 100;
                if r.consumed != 0 || r.produced != 0 {
                    continue;
                }
            }
            if let Some(b) = fast.next_block() {
                got.push((b.block, b.block_lock));
            } else if let Some((&w, tail)) = rest.split_first() {
                fast.feed(w)
                    .expect("the gearbox takes a word when it holds no block");
                rest = tail;
            } else {
                break;
            }
        }
        assert_eq!(got, want, "push_words_locked and block by block disagree");
    }

    // The BER monitor on the aligned headers.
    let mut ber = BerMonitor::new(config, lock_loss);
    let per = config.window_ticks.div_ceil(config.ticks_per_block);
    let per_floor = (config.window_ticks / config.ticks_per_block).max(1);
    let threshold = u32::from(config.threshold);
    let (mut seg_bad, mut prev_hit, mut fresh, mut in_window) = (0u32, false, true, 0u32);
    let mut total_bad = 0u64;
    for (i, b) in blocks.iter().enumerate() {
        let windows = ber.windows();
        let step = ber.step(b.block.sync, b.block_lock);
        let held = !b.block_lock && lock_loss == LockLossReset::ResetMonitor;
        if step.ber_bad_sh {
            total_bad += 1;
            assert!(
                !b.block.sync.is_valid(),
                "block {i}: ber_bad_sh on a valid header"
            );
            assert!(!held, "block {i}: ber_bad_sh while held reset");
        }
        if held {
            assert!(!step.hi_ber, "block {i}: hi_ber while unlocked");
            assert_eq!(ber.windows(), windows);
            (seg_bad, prev_hit, fresh, in_window) = (0, false, true, 0);
            continue;
        }
        let expired = ber.windows() - windows;
        assert!(expired <= 1, "block {i}: two windows in one header");
        if expired == 1 {
            if fresh {
                assert_eq!(in_window, per, "block {i}: first window length");
            } else {
                assert!(
                    (per_floor..=per).contains(&in_window),
                    "block {i}: window of {in_window} headers, expected {per_floor}..={per}"
                );
            }
            prev_hit = seg_bad >= threshold;
            (seg_bad, fresh, in_window) = (0, false, 0);
        }
        in_window += 1;
        seg_bad += u32::from(step.ber_bad_sh);
        assert!(
            seg_bad <= threshold,
            "block {i}: {seg_bad} bad headers in a window"
        );
        assert_eq!(u32::from(ber.ber_cnt()), seg_bad, "block {i}: ber_cnt");
        assert_eq!(
            step.hi_ber,
            prev_hit || seg_bad >= threshold,
            "block {i}: hi_ber"
        );
    }
    assert_eq!(ber.ber_bad_sh_total(), total_bad);
});
