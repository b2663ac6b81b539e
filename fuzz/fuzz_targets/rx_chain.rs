//! The engine's RX chain (what `baser decode` runs) on arbitrary serial bytes, cut into
//! arbitrary pieces, from the model's stream with arbitrary bit flips or from raw fuzz bytes:
//! - it never panics;
//! - the batch paths (`push_words_locked`, `decode_slice`, rolled back when a batch holds an
//!   event) give exactly what the per-block path gives (a sink that asks for the descrambled
//!   blocks forces that path): the same transfers, frames, counts and PCS summary; a sink
//!   that wants frames only (long data runs then go straight into frames) gets the same
//!   frames, counts and summary, and no transfer.
#![no_main]

use baser_engine::rx::{FrameRef, RxChain, RxInput, RxOptions, RxSink};
use baser_engine::tx::{TxBatch, TxChain, TxForms, TxOptions, TxSink};
use baser_engine::Profile;
use baser_fuzz::Input;
use libfuzzer_sys::fuzz_target;
use pcs_core::{Block, XgmiiWord};

#[derive(Default)]
struct Rec {
    blocks: bool,
    frames_only: bool,
    words: Vec<XgmiiWord>,
    frames: Vec<(u64, u8, Vec<u8>)>,
}

impl RxSink for Rec {
    fn wants_blocks(&self) -> bool {
        self.blocks
    }
    fn wants_words(&self) -> bool {
        !self.frames_only
    }
    fn words(&mut self, first: u64, w: &[XgmiiWord], _: Option<&[Block]>) -> std::io::Result<()> {
        assert_eq!(first, self.words.len() as u64);
        self.words.extend_from_slice(w);
        Ok(())
    }
    fn frame(&mut self, f: &FrameRef<'_>) -> std::io::Result<()> {
        self.frames
            .push((f.start.block, f.start.lane, f.data.to_vec()));
        Ok(())
    }
}

#[derive(Default)]
struct Bytes(Vec<u8>);

impl TxSink for Bytes {
    fn forms(&self) -> TxForms {
        TxForms {
            words: false,
            unscrambled: false,
            serial: true,
            line: false,
        }
    }
    fn put(&mut self, b: &TxBatch<'_>) -> std::io::Result<()> {
        self.0.extend(b.serial.iter().flat_map(|w| w.to_le_bytes()));
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let profile = if input.u8() & 1 == 0 {
        Profile::Ieee
    } else {
        Profile::VerilogEthernet
    };
    let raw = input.u8() & 3 == 0;
    let bytes = if raw {
        let n = input.len();
        (0..n).map(|_| input.u8()).collect::<Vec<u8>>()
    } else {
        let mut tx = TxChain::new(
            &TxOptions {
                idle_blocks: u64::from(input.u8()) + 64,
                ..TxOptions::default()
            },
            Bytes::default(),
        );
        for _ in 0..input.u8() % 12 {
            let len = usize::from(input.u16()) % 2000;
            let fill = input.u8();
            let _ = tx.frame(&vec![fill; len], None);
        }
        let mut bytes = tx.finish().map(|(s, _)| s.0).unwrap_or_default();
        let skip = usize::from(input.u8() % 8);
        bytes.drain(..skip.min(bytes.len()));
        for _ in 0..input.u8() % 8 {
            let at = usize::from(input.u16()) * 8 + usize::from(input.u8() % 8);
            let len = bytes.len().max(1);
            if let Some(b) = bytes.get_mut(at / 8 % len) {
                *b ^= 1 << (at % 8);
            }
        }
        bytes
    };
    let mut cuts: Vec<usize> = (0..4)
        .map(|_| usize::from(input.u16()) % 5000 + 1)
        .collect();
    cuts.retain(|&c| c > 0);
    let opt = RxOptions {
        profile,
        max_events: 64,
        ..RxOptions::default()
    };
    let run = |blocks: bool, frames_only: bool| {
        let mut c = RxChain::new(
            &opt,
            RxInput::Serial,
            Rec {
                blocks,
                frames_only,
                ..Rec::default()
            },
        );
        let mut rest = &bytes[..];
        let mut i = 0;
        while !rest.is_empty() {
            let k = cuts[i % cuts.len()].min(rest.len());
            c.push_bytes(&rest[..k]);
            rest = &rest[k..];
            i += 1;
        }
        c.finish().expect("a recording sink never fails")
    };
    let (fp, fc, fast) = run(false, false);
    let (sp, sc, slow) = run(true, false);
    let (op, oc, only) = run(false, true);
    assert!(only.words.is_empty(), "transfers to a sink that wants none");
    assert_eq!(only.frames, slow.frames, "frames (frames only)");
    assert_eq!(
        format!("{oc:?}"),
        format!("{sc:?}"),
        "frame counts (frames only)"
    );
    assert_eq!(
        format!("{op:?}"),
        format!("{sp:?}"),
        "PCS summary (frames only)"
    );
    assert_eq!(fast.words, slow.words, "transfers");
    assert_eq!(fast.frames, slow.frames, "frames");
    assert_eq!(format!("{fc:?}"), format!("{sc:?}"), "frame counts");
    assert_eq!(format!("{fp:?}"), format!("{sp:?}"), "PCS summary");
    assert_eq!(fp.blocks, fast.words.len() as u64, "one transfer per block");
});
