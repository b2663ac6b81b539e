//! Fault injection with predicted outcomes: the model's TX, a fault channel, the model's RX.
//! Each test predicts from the injected faults alone (and the standard's rules) what the
//! receiver must report, and checks every frame and counter against the prediction.

use baser_engine::inject::{predict, Fault, FaultChannel, Prediction};
use baser_engine::rx::{class_name, FrameRef, PcsSummary, ReceivedFrame, RxOptions, RxSink};
use baser_engine::tx::{TxChain, TxOptions, VecSink};
use baser_engine::Profile;
use pcs_core::{Block, XgmiiWord};
use std::collections::BTreeSet;
use std::path::Path;

/// What was sent: line blocks, unscrambled blocks, frames and their block ranges [S, T].
struct Sent {
    lines: Vec<Block>,
    blocks: Vec<Block>,
    frames: Vec<Vec<u8>>,
    ranges: Vec<(u64, u64)>,
}

fn frame(i: usize, len: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xb5];
    let mut x = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    while f.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f.push(x as u8);
    }
    f
}

fn send(lengths: impl IntoIterator<Item = usize>) -> Sent {
    let opt = TxOptions {
        mac: Default::default(),
        profile: Profile::Ieee,
        seed: pcs_core::SCRAMBLER_DEFAULT_STATE,
        idle_blocks: 128,
    };
    let mut chain = TxChain::new(&opt, VecSink::default());
    let mut frames = Vec::new();
    let mut starts = Vec::new();
    for (i, n) in lengths.into_iter().enumerate() {
        let f = frame(i, n);
        starts.push(chain.frame(&f, None).unwrap().block);
        frames.push(f);
    }
    let (sink, _) = chain.finish().unwrap();
    let is_t = |b: &Block| pcs_core::decode_block(*b).class == pcs_core::BlockClass::Terminate;
    let ranges = starts
        .iter()
        .map(|&s| {
            (
                s,
                s + sink.blocks[s as usize..].iter().position(is_t).unwrap() as u64,
            )
        })
        .collect();
    Sent {
        lines: sink.lines,
        blocks: sink.blocks,
        frames,
        ranges,
    }
}

#[derive(Default)]
struct Got {
    frames: Vec<ReceivedFrame>,
    words: Vec<XgmiiWord>,
    blocks: Vec<Option<Block>>,
}

impl RxSink for Got {
    fn wants_blocks(&self) -> bool {
        true
    }

    fn words(&mut self, _i: u64, w: &[XgmiiWord], b: Option<&[Block]>) -> std::io::Result<()> {
        self.words.extend_from_slice(w);
        // A transfer without a block (none in a serial stream) has header 0.
        self.blocks.extend(
            b.unwrap_or_default()
                .iter()
                .map(|b| (b.sync.to_bits() != 0 || b.payload != 0).then_some(*b)),
        );
        Ok(())
    }

    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        self.frames.push(f.to_owned());
        Ok(())
    }
}

/// Sends through the channel and receives; returns what came out and the flipped bits.
fn through(sent: &Sent, faults: &[Fault]) -> (Got, PcsSummary, Vec<u64>) {
    let mut ch = FaultChannel::new(faults);
    for &l in &sent.lines {
        ch.push(l);
    }
    let bytes = ch.finish();
    let opt = RxOptions {
        profile: Profile::Ieee,
        mac: Default::default(),
        max_events: 1000,
        strict_start: false,
        ber_timer: Default::default(),
    };
    let (pcs, _, got) = testbench::stream::decode_bytes(
        "bits",
        &bytes,
        Path::new("channel.bits"),
        &opt,
        baser_engine::live::RxView::Receiver,
        Got::default(),
        &|_| {},
    )
    .unwrap();
    (got, pcs, ch.flipped)
}

/// Indices of frames received intact (class ok, same content), matched by content.
fn intact(sent: &Sent, got: &Got) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for r in got.frames.iter().filter(|r| r.class.is_ok()) {
        let content = &r.data[..r.data.len() - 4];
        if let Some(i) = sent.frames.iter().position(|f| f.as_slice() == content) {
            out.insert(i);
        }
    }
    out
}

/// Payload bits of a block that carry nothing (the zero pads of Figure 49-7).
fn pad_mask(b: Block) -> u64 {
    b.block_type().map_or(0, pcs_core::BlockType::pad_mask)
}

/// Blocks whose meaning the prediction says must change (payload hits outside pad bits,
/// header hits).
fn meaningful(sent: &Sent, p: &Prediction) -> BTreeSet<u64> {
    let mut t: BTreeSet<u64> = p
        .payload_errors
        .iter()
        .filter(|&&q| {
            let b = sent.blocks[(q / 64) as usize];
            pad_mask(b) >> (q % 64) & 1 == 0
        })
        .map(|q| q / 64)
        .collect();
    t.extend(&p.invalid_headers);
    t.extend(&p.swapped_headers);
    t
}

/// The descrambled payload bit positions that differ from what was sent (from `from` on).
fn observed_errors(sent: &Sent, got: &Got, from: usize) -> BTreeSet<u64> {
    let mut e = BTreeSet::new();
    for (i, b) in got.blocks.iter().enumerate().skip(from) {
        if let (Some(b), Some(s)) = (b, sent.blocks.get(i)) {
            let x = b.payload ^ s.payload;
            e.extend(
                (0..64)
                    .filter(|k| x >> k & 1 == 1)
                    .map(|k| 64 * i as u64 + k),
            );
        }
    }
    e
}

#[test]
fn one_line_bit_error_corrupts_exactly_three_bits_and_only_its_frame() {
    let sent = send((0..30).map(|i| 64 + 37 * i));
    for (k, offset, bit) in [(3usize, 2u64, 0u32), (10, 4, 5), (17, 1, 30), (25, 6, 63)] {
        let block = sent.ranges[k].0 + offset;
        let pos = block * 66 + 2 + bit as u64;
        let (got, pcs, flipped) = through(&sent, &[Fault::Flip(pos)]);
        assert_eq!(flipped, [pos]);
        let p = predict(&flipped, &[]);
        assert_eq!(p.payload_errors.len(), 3);
        // Exactly the three predicted descrambled bits differ (after lock and descrambler sync).
        assert_eq!(
            observed_errors(&sent, &got, 70),
            p.payload_errors,
            "flip at block {block} bit {bit}"
        );
        // The frame they fall in is an FCS error; every other frame is received intact.
        let hit = intact(&sent, &got);
        let expect: BTreeSet<usize> = (0..sent.frames.len()).filter(|&i| i != k).collect();
        assert_eq!(hit, expect, "flip in frame {k}");
        let bad: Vec<_> = got.frames.iter().filter(|f| !f.class.is_ok()).collect();
        assert_eq!(bad.len(), 1);
        assert_eq!(class_name(bad[0].class), "fcs_error");
        assert_eq!((pcs.invalid_headers, pcs.errored_blocks), (0, 0));
    }
}

#[test]
fn a_corrupted_sync_header_is_counted_and_becomes_an_e_block() {
    let sent = send((0..20).map(|i| 100 + 50 * i));
    let k = 7;
    let block = sent.ranges[k].0 + 3;
    let (got, pcs, _) = through(&sent, &[Fault::Header(block)]);
    assert_eq!(pcs.invalid_headers, 1);
    assert_eq!(pcs.errored_blocks, 1);
    assert_eq!(pcs.e_transitions[0].block, block);
    assert!(
        pcs.e_transitions[0].what.contains("invalid sync header 0"),
        "{}",
        pcs.e_transitions[0].what
    );
    assert_eq!(got.words[block as usize], XgmiiWord::ERROR);
    let expect: BTreeSet<usize> = (0..sent.frames.len()).filter(|&i| i != k).collect();
    assert_eq!(intact(&sent, &got), expect);
    let bad: Vec<_> = got.frames.iter().filter(|f| !f.class.is_ok()).collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(class_name(bad[0].class), "error_character");
}

#[test]
fn sixteen_invalid_headers_lose_lock_which_returns_after_64_good_headers_and_at_most_66_slips() {
    let sent = send((0..120).map(|i| 64 + (i * 97) % 1400));
    let first = 2000u64;
    let faults: Vec<Fault> = (first..first + 16).map(Fault::Header).collect();
    let (got, pcs, _) = through(&sent, &faults);
    // 15 invalid headers keep lock; the 16th (block first + 15, in the same 64-header
    // window) loses it.
    assert_eq!(pcs.lock_losses, [first + 15]);
    let acquired = pcs.lock_acquired.unwrap();
    assert_eq!((acquired.block, acquired.slips), (63, 0));
    let relock = pcs.relocks[0];
    let slips = relock.slips - acquired.slips;
    assert!((1..=66).contains(&slips), "{slips} slips");
    // Back at the true boundary: every block after re-lock is a block that was sent.
    assert_eq!(relock.bit_offset % 66, 0, "{relock:?}");
    // While unlocked the receiver sends Local Fault; afterwards the stream is intact again.
    let lost: BTreeSet<usize> = (0..sent.frames.len())
        .filter(|&i| {
            let (s, t) = sent.ranges[i];
            t + 1 >= first && s <= relock.block + 1
        })
        .collect();
    let expect: BTreeSet<usize> = (0..sent.frames.len())
        .filter(|i| !lost.contains(i))
        .collect();
    assert_eq!(intact(&sent, &got), expect);
    assert!(lost.len() >= 2);
}

/// Window boundaries of the BER monitor: windows start at the lock block and are exactly
/// 125 µs = 78125 quarter blocks long.
fn window_of(block: u64, lock: u64) -> u64 {
    (block - lock) * 4 / 78125
}

fn window_start(k: u64, lock: u64) -> u64 {
    lock + (k * 78125).div_ceil(4)
}

/// Reference BER monitor over the predicted invalid headers: hi_ber from the 16th invalid
/// header of a window to the end of the first later window with fewer than 16.
fn predict_hi_ber(invalid: &BTreeSet<u64>, lock: u64, end: u64) -> Vec<(u64, u64)> {
    let mut periods = Vec::new();
    let last_window = window_of(end, lock);
    let mut k = 0;
    while k <= last_window {
        let in_k: Vec<u64> = invalid
            .iter()
            .copied()
            .filter(|&b| b >= lock && window_of(b, lock) == k)
            .collect();
        if in_k.len() >= 16 {
            let rise = in_k[15];
            let mut j = k + 1;
            while j <= last_window
                && invalid
                    .iter()
                    .filter(|&&b| b >= lock && window_of(b, lock) == j)
                    .count()
                    >= 16
            {
                j += 1;
            }
            periods.push((rise, window_start(j + 1, lock)));
            k = j + 1;
        } else {
            k += 1;
        }
    }
    periods
}

#[test]
fn hi_ber_rises_on_the_16th_invalid_header_and_clears_after_a_clean_window() {
    // About 60000 blocks: three BER windows.
    let sent = send((0..420).map(|i| 1000 + (i * 31) % 500));
    assert!(sent.lines.len() > 3 * 19532, "{}", sent.lines.len());
    // 16 invalid headers, 200 blocks apart (never 16 in a 64-header lock window), in window 0.
    let headers: BTreeSet<u64> = (0..16).map(|i| 1000 + 200 * i).collect();
    let faults: Vec<Fault> = headers.iter().map(|&b| Fault::Header(b)).collect();
    let (got, pcs, _) = through(&sent, &faults);
    let lock = pcs.lock_acquired.unwrap().block;
    assert_eq!(lock, 63);
    let periods = predict_hi_ber(&headers, lock, sent.lines.len() as u64);
    assert_eq!(periods, [(4000, window_start(2, lock))]);
    assert_eq!(pcs.hi_ber_episodes, [4000]);
    assert_eq!(pcs.hi_ber_clears, [window_start(2, lock)]);
    assert!(pcs.lock_losses.is_empty());
    assert_eq!(pcs.invalid_headers, 16);
    // Local Fault at the XGMII while hi_ber is true (the receive state machine is held in
    // RX_INIT), and while block lock is false at the start.
    let (rise, clear) = periods[0];
    for b in (rise + 1..clear).step_by(97) {
        assert_eq!(got.words[b as usize], XgmiiWord::LOCAL_FAULT, "block {b}");
    }
    for b in 0..lock {
        assert_eq!(got.words[b as usize], XgmiiWord::LOCAL_FAULT, "block {b}");
    }
    // Frames overlapping the hi_ber period or an invalid header are lost; all others intact.
    let lost: BTreeSet<usize> = (0..sent.frames.len())
        .filter(|&i| {
            let (s, t) = sent.ranges[i];
            (t + 1 >= rise && s <= clear) || headers.iter().any(|&h| h >= s && h <= t + 1)
        })
        .collect();
    let expect: BTreeSet<usize> = (0..sent.frames.len())
        .filter(|i| !lost.contains(i))
        .collect();
    assert_eq!(intact(&sent, &got), expect);
}

#[test]
fn ber_sweep_accounts_for_every_frame_and_counter() {
    // 1e-9 .. 1e-3: every frame touched by a predicted error is lost, every other frame is
    // received intact, and the invalid-header counter equals the prediction.
    let sent = send((0..260).map(|i| 64 + (i * 211) % 1451));
    let n = sent.lines.len() as u64;
    for (rate, seed) in [
        (1e-9, 1),
        (1e-7, 2),
        (1e-6, 3),
        (1e-5, 4),
        (1e-4, 5),
        (1e-3, 6),
    ] {
        let (got, pcs, flipped) = through(&sent, &[Fault::Ber(rate, seed)]);
        let p = predict(&flipped, &[]);
        let lock = pcs.lock_acquired.expect("lock").block;
        assert!(pcs.lock_losses.is_empty(), "rate {rate}");
        let invalid_after_lock: BTreeSet<u64> = p
            .invalid_headers
            .iter()
            .copied()
            .filter(|&b| b >= lock)
            .collect();
        assert_eq!(
            pcs.invalid_headers,
            invalid_after_lock.len() as u64,
            "rate {rate}"
        );
        let hi_ber = predict_hi_ber(&invalid_after_lock, lock, n);
        assert_eq!(
            pcs.hi_ber_episodes,
            hi_ber.iter().map(|p| p.0).collect::<Vec<_>>(),
            "rate {rate}"
        );
        let touched = meaningful(&sent, &p);
        // A frame is certainly lost if a touched block is within [S, T] or it overlaps hi_ber
        // (or falls before lock). It may also be lost if the block after its T is touched
        // (R_TYPE_NEXT may then reject the T) or the block before its S is (RX_E --S--> RX_E).
        let in_hi_ber = |s: u64, t: u64| hi_ber.iter().any(|&(a, b)| t + 1 >= a && s <= b);
        let certain: BTreeSet<usize> = (0..sent.frames.len())
            .filter(|&i| {
                let (s, t) = sent.ranges[i];
                touched.range(s..=t).next().is_some() || in_hi_ber(s, t) || s <= lock + 1
            })
            .collect();
        let possible: BTreeSet<usize> = (0..sent.frames.len())
            .filter(|&i| {
                let (s, t) = sent.ranges[i];
                certain.contains(&i) || touched.contains(&(t + 1)) || touched.contains(&(s - 1))
            })
            .collect();
        let ok = intact(&sent, &got);
        let lost: BTreeSet<usize> = (0..sent.frames.len()).filter(|i| !ok.contains(i)).collect();
        assert!(
            certain.is_subset(&lost),
            "rate {rate}: predicted lost {certain:?}, lost {lost:?}"
        );
        assert!(
            lost.is_subset(&possible),
            "rate {rate}: lost {lost:?} beyond prediction {possible:?}"
        );
        // Every received frame that is not intact is accounted for by a lost frame.
        let bad = got.frames.iter().filter(|f| !f.class.is_ok()).count();
        assert!(bad <= lost.len(), "rate {rate}");
        if rate <= 1e-7 {
            assert_eq!(lost.len(), certain.len(), "rate {rate}");
        }
        eprintln!(
            "rate {rate:e}: {} bits flipped, {} invalid headers, {} hi_ber episodes, {} of {} frames lost",
            flipped.len(),
            pcs.invalid_headers,
            pcs.hi_ber_episodes.len(),
            lost.len(),
            sent.frames.len()
        );
    }
}
