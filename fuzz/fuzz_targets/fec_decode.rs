//! Both FEC decoders on arbitrary line bits (fec-core).
//!
//! Input: one knob byte, then line bits (bit 0 of the first byte first on the line).
//!
//! Invariants:
//! - nothing panics, whatever the bits (the receivers locked or searching, both decoders);
//! - Clause 74: a FEC block the decoder says it corrected is, with the burst it names put
//!   back, exactly the encoding of the blocks it returned, and the burst is at most 11 bits;
//!   a clean one is the encoding of its blocks;
//! - Clause 108: a codeword the decoder says it corrected has a zero remainder by g(x)
//!   (re-encodes to itself), with at most 7 symbols corrected, and as many bits flipped as
//!   the error pattern says;
//! - the streaming receivers, fed the same bytes in pieces the knob chooses, never panic and
//!   report every codeword they decode while locked.
#![no_main]

use fec_core::{base_r, rs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&knob, line)) = data.split_first() else {
        return;
    };
    // Clause 74, one FEC block at the start of the input.
    if let Some(octets) = line.first_chunk::<264>() {
        let words = base_r::from_octets(octets);
        let d = base_r::decode(&words, base_r::DecodeOptions::default());
        match d.outcome {
            base_r::DecodeOutcome::Clean => {
                assert_eq!(base_r::encode(&d.blocks), words);
            }
            base_r::DecodeOutcome::Corrected(burst) => {
                assert!(usize::from(burst.len_bits()) <= base_r::MAX_BURST_BITS as usize);
                let mut fixed = words;
                burst.apply(&mut fixed);
                assert_eq!(base_r::encode(&d.blocks), fixed);
            }
            base_r::DecodeOutcome::Uncorrectable | base_r::DecodeOutcome::BadParity => {}
        }
    }
    // Clause 108, one codeword at the start of the input.
    if let Some(octets) = line.first_chunk::<660>() {
        let mut cw = rs::Codeword::from_octets(octets);
        let before = cw.clone();
        match rs::decode(&mut cw, rs::CorrectionMode::Correct) {
            rs::DecodeOutcome::Corrected(p) => {
                assert!(p.symbols() as usize <= rs::T);
                assert_eq!(rs::remainder(&cw), [0u16; 14]);
                let flipped: u32 = (0..rs::CODEWORD_BITS)
                    .filter(|&b| cw.bit(b) != before.bit(b))
                    .count() as u32;
                assert_eq!(flipped, p.bits());
            }
            rs::DecodeOutcome::Clean => assert_eq!(rs::remainder(&cw), [0u16; 14]),
            rs::DecodeOutcome::NotCorrected(_) | rs::DecodeOutcome::Uncorrectable => {}
        }
    }
    // The streaming receivers, in pieces.
    let piece = usize::from(knob % 61) + 1;
    let mut fc = base_r::FecRx::default();
    let mut out = [base_r::FecRxBlock::EMPTY; 4];
    for chunk in line.chunks(piece) {
        let mut rest = chunk;
        loop {
            let p = fc.push_bytes(rest, &mut out);
            rest = rest.get(p.consumed..).unwrap_or_default();
            if rest.is_empty() || (p.consumed == 0 && p.produced == 0) {
                break;
            }
        }
    }
    let config = rs::RsFecConfig {
        marker_period_codewords: 1 + u32::from(knob >> 6),
        lock_markers: 1,
        ..rs::RsFecConfig::IEEE
    };
    if let Ok(mut rx) = rs::Receiver::new(&config) {
        for chunk in line.chunks(piece) {
            rx.push_bytes(chunk, |ev| {
                if let rs::RxEvent::Codeword { blocks, report, .. } = ev {
                    assert_eq!(blocks.len(), report.blocks());
                }
            });
        }
    }
});
