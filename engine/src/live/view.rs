//! How a live receiver reads a serial stream: as a receiver sees it, or offline.
//!
//! ```text
//! RxView::Receiver  bits -> RxChain (Serial): block lock from the first bit; the blocks
//!                   before lock are not decoded (a frame sent then is lost, as on a link)
//! RxView::Offline   bits -> held until block lock is found -> RxChain (SerialAligned): decoded
//!                   from the first whole block with lock held (no frame is lost to lock)
//! ```
//!
//! The same two views as `baser decode` (default and `--offline`) and `baser check`
//! (`--receiver-view` and default) give a whole file; here they are taken one clock at a time.
//! Block and XGMII input are not cut by block lock: both views read them alike.

use super::{FrameQueue, LiveError, LiveRx};
use crate::rx::{LockAcquired, LockFinder, PcsEvent, RxChain, RxInput, RxOptions};
use pcs_core::TxGearbox;
use pcs_core::{Block, XgmiiWord};
use std::sync::{Arc, Mutex};

/// Which frames of a serial stream a live receiver delivers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RxView {
    /// As a receiver: block lock from the first bit, nothing decoded before lock (frames sent
    /// before a receiver could lock are lost). The C ABI's `input=serial` and `baser decode`.
    #[default]
    Receiver,
    /// Offline: the bits are held until block lock is found, then decoded from the first whole
    /// block with lock held (what `baser check` and `baser decode --offline` read), so frames
    /// sent before lock are delivered too. A stream that finds no lock in
    /// [`MAX_HELD_CLOCKS`] clocks (or by its end) is then read as a receiver reads it.
    Offline,
}

impl RxView {
    /// The view's name: `receiver` or `offline`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Receiver => "receiver",
            Self::Offline => "offline",
        }
    }
}

impl std::str::FromStr for RxView {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "receiver" => Ok(Self::Receiver),
            "offline" => Ok(Self::Offline),
            _ => Err(format!("unknown view `{s}`: expected receiver or offline")),
        }
    }
}

impl std::fmt::Display for RxView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Clocks of serial input held while the offline view looks for block lock; past them the
/// stream is read as a receiver reads it.
pub const MAX_HELD_CLOCKS: usize = 1 << 16;

/// The decoded transfers a live receiver hands out on request ([`LiveRx::tapped`]):
/// `(block, transfer)`, transfer i of the decoded stream being block i of the received one.
pub type WordTap = Arc<Mutex<Vec<(u64, XgmiiWord)>>>;

/// What the offline view holds while it looks for block lock.
#[derive(Debug)]
enum Held {
    Nothing,
    /// 66-bit units ([`LiveRx::push_units`]).
    Units(Vec<Block>),
    /// Serial bytes ([`LiveRx::push_word`]).
    Bytes(Vec<u8>),
}

/// The offline view before block lock: the stream so far, and the search for lock in it.
#[derive(Debug)]
pub(super) struct LockSearch {
    opt: RxOptions,
    finder: LockFinder,
    /// Units packed into bytes for the finder.
    packer: TxGearbox<u8>,
    held: Held,
    clocks: usize,
}

/// How the search stands after new bits.
enum Search {
    Going,
    Found(LockAcquired),
    /// No lock in [`MAX_HELD_CLOCKS`]: read as a receiver does.
    GiveUp,
}

impl LockSearch {
    fn new(opt: &RxOptions) -> Self {
        Self {
            opt: *opt,
            finder: LockFinder::default(),
            packer: TxGearbox::new(),
            held: Held::Nothing,
            clocks: 0,
        }
    }

    /// True once it holds input.
    pub(super) fn started(&self) -> bool {
        !matches!(self.held, Held::Nothing)
    }

    fn outcome(&mut self, found: Option<LockAcquired>) -> Search {
        self.clocks += 1;
        match found {
            Some(f) => Search::Found(f),
            None if self.clocks > MAX_HELD_CLOCKS => Search::GiveUp,
            None => Search::Going,
        }
    }

    fn units(&mut self, units: &[Block]) -> Result<Search, LiveError> {
        let held = match &mut self.held {
            Held::Nothing => {
                self.held = Held::Units(Vec::new());
                return self.units(units);
            }
            Held::Units(v) => v,
            Held::Bytes(_) => return Err(MIXED),
        };
        held.extend_from_slice(units);
        let mut found = None;
        for &u in units {
            let bytes = self.packer.push_block(u);
            found = found.or_else(|| self.finder.push_bytes(bytes.as_slice()));
        }
        Ok(self.outcome(found))
    }

    fn bytes(&mut self, bytes: &[u8]) -> Result<Search, LiveError> {
        let held = match &mut self.held {
            Held::Nothing => {
                self.held = Held::Bytes(Vec::new());
                return self.bytes(bytes);
            }
            Held::Bytes(v) => v,
            Held::Units(_) => return Err(MIXED),
        };
        held.extend_from_slice(bytes);
        let found = self.finder.push_bytes(bytes);
        Ok(self.outcome(found))
    }
}

const MIXED: LiveError =
    LiveError::Input("66-bit units and serdes words pushed to one model: use one or the other");

/// Gives `chain` what the search held.
fn replay(chain: &mut RxChain<FrameQueue>, held: Held) {
    match held {
        Held::Nothing => {}
        Held::Units(u) => chain.push_units(&u),
        Held::Bytes(b) => chain.push_bytes(&b),
    }
}

impl LiveRx {
    /// A model out of reset for `input`, reading a serial stream in `view` ([`LiveRx::new`]
    /// is the receiver's view).
    pub fn with_view(opt: &RxOptions, input: RxInput, view: RxView) -> Self {
        let mut rx = Self::new(opt, input);
        if view == RxView::Offline && input == RxInput::Serial {
            rx.search = Some(Box::new(LockSearch::new(opt)));
        }
        rx
    }

    /// The view it reads serial input in.
    pub fn view(&self) -> RxView {
        if self.search.is_some() || matches!(self.input(), RxInput::SerialAligned { .. }) {
            RxView::Offline
        } else {
            RxView::Receiver
        }
    }

    /// True while the offline view holds the stream and looks for block lock (nothing is
    /// decoded yet: the status and counts are those of a receiver out of reset).
    pub fn searching(&self) -> bool {
        self.search.is_some()
    }

    /// 66 serial bits a clock each, as a serdes interface of 66 bits gives them (for serial
    /// input): unit bit 0 (sync bit 0) first on the wire, then the payload's bits 0..63. A
    /// unit is 66 line bits at any offset, not a block: block lock finds the boundary. Do not
    /// mix with [`LiveRx::push_word`] on one model.
    ///
    /// # Errors
    /// The model takes blocks or XGMII transfers, or was finished; units after serdes words
    /// while the offline view holds the stream.
    pub fn push_units(&mut self, units: &[Block]) -> Result<(), LiveError> {
        if !matches!(
            self.input(),
            RxInput::Serial | RxInput::SerialAligned { .. }
        ) {
            return Err(LiveError::Input(
                "66-bit units pushed to a model made for blocks or XGMII transfers",
            ));
        }
        let chain = self.chain.as_mut().ok_or(LiveError::Finished)?;
        if let Some(f) = self.fec.as_mut() {
            f.units(chain, units);
            return Ok(());
        }
        match self.search.as_mut() {
            Some(s) => {
                let found = s.units(units)?;
                self.searched(found);
            }
            None => self.chain()?.push_units(units),
        }
        Ok(())
    }

    /// Serial bytes of serdes words, through the offline view's search while it holds the
    /// stream.
    pub(super) fn serial_bytes(&mut self, bytes: &[u8]) -> Result<(), LiveError> {
        let chain = self.chain.as_mut().ok_or(LiveError::Finished)?;
        if let Some(f) = self.fec.as_mut() {
            f.bytes(chain, bytes);
            return Ok(());
        }
        match self.search.as_mut() {
            Some(s) => {
                let found = s.bytes(bytes)?;
                self.searched(found);
            }
            None => self.chain()?.push_bytes(bytes),
        }
        Ok(())
    }

    fn searched(&mut self, s: Search) {
        match s {
            Search::Going => {}
            Search::GiveUp => self.end_search(),
            Search::Found(found) => {
                let Some(search) = self.search.take() else {
                    return;
                };
                let input = RxInput::SerialAligned {
                    bit_offset: u32::try_from(found.bit_offset % 66).unwrap_or(0),
                    found,
                };
                let tap = self.chain.as_mut().and_then(|c| c.sink_mut().words.take());
                let queue = FrameQueue {
                    words: tap,
                    ..FrameQueue::default()
                };
                let mut chain = RxChain::new(&search.opt, input, queue);
                replay(&mut chain, search.held);
                self.chain = Some(chain);
            }
        }
    }

    /// Ends the offline view's search without lock: what it held goes to the receiver's
    /// chain (the receiver's view of the same bits).
    pub(super) fn end_search(&mut self) {
        if let (Some(search), Some(chain)) = (self.search.take(), self.chain.as_mut()) {
            replay(chain, search.held);
        }
    }

    /// As [`LiveRx::with_view`], keeping the decoded transfers: the tap returned fills as the
    /// chain decodes (`(block, transfer)`), until the model is finished and after (the last
    /// blocks'). The chain then hands the MAC transfers (no octet shortcuts).
    pub fn tapped(opt: &RxOptions, input: RxInput, view: RxView) -> (Self, WordTap) {
        let mut rx = Self::with_view(opt, input, view);
        let tap = WordTap::default();
        let queue = FrameQueue {
            words: Some(tap.clone()),
            ..FrameQueue::default()
        };
        rx.chain = Some(RxChain::new(opt, input, queue));
        (rx, tap)
    }

    /// The last errored block counted: its index and the receive state machine's arrow.
    pub fn last_errored(&self) -> Option<PcsEvent> {
        self.chain.as_ref().and_then(RxChain::last_errored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::LiveTx;
    use crate::tx::TxOptions;

    fn frames(n: usize) -> Vec<Vec<u8>> {
        (0..n).map(|i| vec![i as u8 + 1; 60 + 37 * i]).collect()
    }

    /// The line of a TX model with `idle` idle blocks first and `frames` (and 300 after them:
    /// time to find lock), as 66-bit units moved by `skip` bits.
    fn units(idle: u64, frames: &[Vec<u8>], skip: u32) -> Vec<Block> {
        let mut tx = LiveTx::new(&TxOptions {
            idle_blocks: idle,
            ..TxOptions::default()
        });
        for f in frames {
            tx.send(f, None).unwrap();
        }
        let mut bits: Vec<bool> = Vec::new();
        let mut tail = 0;
        while tail < 300 {
            tail += u32::from(tx.pending() == 0);
            let b = tx.clock().unwrap().line;
            bits.push(b.sync.to_bits() & 1 == 1);
            bits.push(b.sync.to_bits() >> 1 == 1);
            bits.extend((0..64).map(|i| (b.payload >> i) & 1 == 1));
        }
        bits.drain(..skip as usize);
        bits.chunks_exact(66)
            .map(|c| {
                let v: u128 = c.iter().enumerate().map(|(i, &b)| u128::from(b) << i).sum();
                Block {
                    sync: pcs_core::SyncHeader::from_bits((v & 3) as u8),
                    payload: (v >> 2) as u64,
                }
            })
            .collect()
    }

    fn received(view: RxView, units: &[Block], words: bool) -> Vec<Vec<u8>> {
        let opt = crate::Options::default().rx();
        let mut rx = LiveRx::with_view(&opt, RxInput::Serial, view);
        if words {
            let mut bytes = Vec::new();
            let mut gb = TxGearbox::<u8>::new();
            for &u in units {
                bytes.extend_from_slice(gb.push_block(u).as_slice());
            }
            for w in bytes.chunks_exact(8) {
                let w = u64::from_le_bytes(w.try_into().unwrap());
                rx.push_word(64, w).unwrap();
            }
        } else {
            for &u in units {
                rx.push_units(&[u]).unwrap();
            }
        }
        rx.finish().unwrap();
        rx.frames()
            .drain(..)
            .map(|f| f.content().to_vec())
            .collect()
    }

    #[test]
    fn the_offline_view_keeps_frames_sent_before_lock_and_the_receiver_view_loses_them() {
        let fs = frames(6);
        for skip in [0, 7, 65] {
            for words in [false, true] {
                let u = units(2, &fs, skip);
                assert_eq!(received(RxView::Offline, &u, words), fs, "skip {skip}");
                let seen = received(RxView::Receiver, &u, words);
                assert!(seen.len() < fs.len(), "skip {skip}: {}", seen.len());
                assert_eq!(seen[..], fs[fs.len() - seen.len()..], "skip {skip}");
            }
        }
    }

    #[test]
    fn after_lock_both_views_deliver_the_same_frames() {
        let fs = frames(5);
        let u = units(400, &fs, 13);
        assert_eq!(received(RxView::Receiver, &u, false), fs);
        assert_eq!(received(RxView::Offline, &u, false), fs);
    }

    #[test]
    fn a_stream_without_lock_is_read_as_a_receiver_reads_it() {
        let opt = crate::Options::default().rx();
        let mut rx = LiveRx::with_view(&opt, RxInput::Serial, RxView::Offline);
        assert_eq!(rx.view(), RxView::Offline);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100 {
            // xorshift: no lock in random bits
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let junk = Block {
                sync: pcs_core::SyncHeader::from_bits((x >> 60) as u8 & 3),
                payload: x,
            };
            rx.push_units(&[junk]).unwrap();
        }
        assert!(rx.searching());
        assert_eq!(rx.status().blocks, 0);
        assert!(rx.push_word(64, 0).is_err(), "units and words mixed");
        let (pcs, _) = rx.finish().unwrap();
        assert!(!rx.searching());
        assert!(pcs.blocks >= 99, "{}", pcs.blocks);
        assert!(pcs.lock_acquired.is_none());
    }

    #[test]
    fn the_word_tap_follows_the_chain_across_lock() {
        let fs = frames(2);
        let u = units(2, &fs, 5);
        let opt = crate::Options::default().rx();
        let (mut rx, tap) = LiveRx::tapped(&opt, RxInput::Serial, RxView::Offline);
        for &b in &u {
            rx.push_units(&[b]).unwrap();
        }
        rx.finish().unwrap();
        let words = tap.lock().unwrap();
        let starts = words
            .iter()
            .filter(|(_, w)| (0..8).any(|l| w.is_control(l) && w.octet(l) == 0xfb))
            .count();
        assert_eq!(starts, 2);
        assert!(words.windows(2).all(|p| p[1].0 == p[0].0 + 1));
    }

    #[test]
    fn views_are_named() {
        for v in [RxView::Receiver, RxView::Offline] {
            assert_eq!(v.name().parse::<RxView>(), Ok(v));
        }
        assert!("aligned".parse::<RxView>().is_err());
        assert_eq!(RxView::default(), RxView::Receiver);
    }
}
