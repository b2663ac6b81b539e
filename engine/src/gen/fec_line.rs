//! FEC stimulus: a generated stream's line blocks through the FEC (Clause 74 or Clause 108),
//! with faults planned on its FEC blocks or codewords, some within the code's power and some
//! beyond it, and the counters a receiver must report (`ExpectedFec`).

use super::{Generated, Rng};
use crate::fec::{
    ExpectedFec, ExpectedUncorrectable, Fec, FecEncoder, FecOptions, FecRxChain, PlannedFecFault,
};
use crate::inject::Fault;

/// The faults [`fec_stimulus`] plans on a FEC's line, and where the line starts.
#[derive(Clone, Copy, Debug, Default)]
pub struct FecFaults {
    /// FEC blocks or codewords given a correctable fault.
    pub correctable: usize,
    /// FEC blocks or codewords given an uncorrectable fault.
    pub uncorrectable: usize,
    /// The seed the faults are drawn from.
    pub seed: u64,
    /// Bits (ones) before the line's first bit, as `gen --bit-offset` puts them before a
    /// plain line: the planned line bits count them.
    pub bit_offset: u32,
}

/// A FEC'd stream: the line and its expectation (the generated stream's own is updated).
pub struct FecStimulus {
    /// The line bits, bit 0 of byte 0 first.
    pub line: Vec<u8>,
    /// The line faults put on it (`--inject` specs a user can give `encode`).
    pub faults: Vec<Fault>,
}

/// The blocks an RS-FEC codeword carries and where its first one is, by codeword index.
fn rs_blocks(index: u64, period: u64) -> (u64, u64) {
    use fec_core::rs::{BLOCKS_PER_CODEWORD as N, BLOCKS_PER_MARKER_CODEWORD as M};
    let (n, m) = (N as u64, M as u64);
    let markers_before = index.div_ceil(period.max(1));
    let first = index * n - markers_before * (n - m);
    let len = if index.is_multiple_of(period.max(1)) {
        m
    } else {
        n
    };
    (first, len)
}

/// Encodes `g`'s line blocks with the FEC of `fec` (idle blocks finish the last FEC block or
/// codeword: `g.line` gains them) and plans faults from `plan.seed`: `correctable` FEC blocks
/// or codewords get 1 to 7 symbol errors (RS-FEC) or a burst of 1 to 11 bits (Clause 74), and
/// `uncorrectable` get 8 to 12 symbols or a burst of 12 or 13 bits (every such burst is
/// detected). The first FEC blocks or codewords (lock; with a bit offset, Clause 74 also the
/// ones a receiver slips through) and RS-FEC marker codewords are left alone. The expectation
/// gains the `fec` counters; the outcomes of the frames an uncorrectable one hits are the
/// model's decode of the faulted line (the others stay the scenario's). When the FEC changes
/// what the PCS receives beyond that (a hostile stream's invalid sync headers and reserved
/// block types, which a FEC's transcoding cannot carry as they were; hi_ber raised by several
/// uncorrectable RS-FEC codewords), every frame's outcome and the PCS counts are the model's
/// decode of the line. A hostile stream's bit slips are PCS-line events: below a FEC they are
/// left out.
///
/// # Errors
/// A FEC setting the standard refuses, or no room for the faults asked for.
pub fn fec_stimulus(
    g: &mut Generated,
    rate: crate::fec::Rate,
    fec: &FecOptions,
    plan: &FecFaults,
) -> Result<FecStimulus, String> {
    let FecFaults {
        correctable,
        uncorrectable,
        seed,
        bit_offset,
    } = *plan;
    let slips = std::mem::take(&mut g.slips);
    g.expectation
        .events
        .retain(|(_, what)| !what.starts_with("bit slip"));
    let mut enc = FecEncoder::new(fec)?.ok_or("no FEC given")?;
    let mut words = Vec::new();
    enc.push_blocks(&g.line, &mut words);
    if let Some(&last) = g.line.last() {
        let fill = enc.idle_fill(last);
        enc.push_blocks(&fill, &mut words);
        g.line.extend(fill);
    }
    let mut line: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(t) = enc.tail() {
        let n = t.valid_bits.div_ceil(8) as usize;
        line.extend_from_slice(t.word.to_le_bytes().get(..n).unwrap_or_default());
    }
    let units = enc.codewords();
    let period = u64::from(fec.rs.marker_period_codewords);
    // (A Clause 74 receiver slips a bit a FEC block: `bit_offset` more before it locks.)
    let (unit_bits, first_free) = match fec.kind {
        Fec::Rs => (fec_core::rs::CODEWORD_BITS as u64, 1),
        _ => (
            fec_core::base_r::FEC_BLOCK_BITS as u64,
            2 + u64::from(bit_offset),
        ),
    };
    let free: Vec<u64> = (first_free..units)
        .filter(|&u| fec.kind != Fec::Rs || !u.is_multiple_of(period.max(1)))
        .collect();
    if correctable + uncorrectable > free.len() {
        return Err(format!(
            "{} faulted {}s asked for, the line has {} to fault (make the stream longer: --items)",
            correctable + uncorrectable,
            fec.kind.unit(),
            free.len()
        ));
    }
    // The units, drawn without repeats, in line order.
    let mut rng = Rng(seed ^ 0xfec0_fec0);
    let mut pool = free;
    let mut picked: Vec<(u64, bool)> = (0..correctable + uncorrectable)
        .map(|i| {
            let k = rng.range(0, pool.len() as u64 - 1) as usize;
            (pool.swap_remove(k), i < correctable)
        })
        .collect();
    picked.sort_unstable();
    let mut faults = Vec::new();
    let mut planned = Vec::new();
    for (unit, ok) in picked {
        let bit = unit * unit_bits;
        let (fault, size) = match (fec.kind, ok) {
            (Fec::Rs, true) => {
                let k = rng.range(1, 7) as u32;
                (Fault::Symbols(unit, k), k)
            }
            (Fec::Rs, false) => {
                let k = rng.range(8, 12) as u32;
                (Fault::Symbols(unit, k), k)
            }
            (_, ok) => {
                let len = if ok {
                    rng.range(1, 11)
                } else {
                    rng.range(12, 13)
                };
                let at = rng.range(0, unit_bits - len);
                (Fault::Burst(bit + at, len as u32), len as u32)
            }
        };
        faults.push(fault);
        planned.push(PlannedFecFault {
            codeword: unit,
            bit,
            size,
            correctable: ok,
        });
    }
    let reshaped = !slips.is_empty() || !carried_as_sent(g, fec, &line)?;
    crate::inject::corrupt_line(&mut line, &faults)?;
    let mut expected = expect(g, rate, fec, &planned, period)?;
    for b in expected
        .faults
        .iter_mut()
        .map(|f| &mut f.bit)
        .chain(expected.uncorrectable.iter_mut().map(|u| &mut u.bit))
    {
        *b += u64::from(bit_offset);
    }
    g.expectation.fec = Some(ExpectedFec {
        codewords_on_line: units,
        ..expected
    });
    let line = ones_before(&line, bit_offset);
    model_outcomes(g, rate, fec, &line, reshaped)?;
    Ok(FecStimulus { line, faults })
}

/// `line` after `bits` ones (0 to 65: `gen --bit-offset`), bit 0 first.
fn ones_before(line: &[u8], bits: u32) -> Vec<u8> {
    if bits == 0 {
        return line.to_vec();
    }
    let (whole, rest) = ((bits / 8) as usize, bits % 8);
    let mut out = vec![0xff; whole];
    if rest == 0 {
        out.extend_from_slice(line);
        return out;
    }
    let mut carry = (1u16 << rest) - 1;
    for &b in line {
        let v = carry | u16::from(b) << rest;
        out.push(v as u8);
        carry = v >> 8;
    }
    out.push(carry as u8);
    out
}

/// The FEC's receiver, reading the clean `line` offline, hands the PCS exactly `g`'s line
/// blocks (false for a hostile stream's invalid sync headers, which neither FEC's transcoding
/// keeps, and the block types RS-FEC's cannot carry).
fn carried_as_sent(g: &Generated, fec: &FecOptions, line: &[u8]) -> Result<bool, String> {
    let mut fec = *fec;
    fec.rs.lock_markers = 1;
    let mut d = crate::fec::FecDecoder::with_view(&fec, 0, crate::live::RxView::Offline)?
        .ok_or("no FEC given")?;
    let mut got = Vec::with_capacity(g.line.len());
    d.push_bytes(line, |b| got.extend_from_slice(b));
    d.flush(|b| got.extend_from_slice(b));
    Ok(got == g.line)
}

/// The counters the planned faults give, each uncorrectable unit with the frames in it (their
/// placement from a clean decode of the line blocks); the PCS counts an RS-FEC error
/// indication gives (every block of the codeword invalid).
fn expect(
    g: &mut Generated,
    rate: crate::fec::Rate,
    fec: &FecOptions,
    planned: &[PlannedFecFault],
    period: u64,
) -> Result<ExpectedFec, String> {
    let placed = placements(g, rate)?;
    let rs = fec.kind == Fec::Rs;
    let ok: Vec<&PlannedFecFault> = planned.iter().filter(|p| p.correctable).collect();
    let mut e = ExpectedFec {
        kind: fec.kind,
        faults: planned.to_vec(),
        corrected_codewords: ok.len() as u64,
        corrected_symbols: rs.then(|| ok.iter().map(|p| u64::from(p.size)).sum()),
        // A symbol fault flips one bit a symbol; a burst flips every bit of it.
        corrected_bits: ok.iter().map(|p| u64::from(p.size)).sum(),
        uncorrected_codewords: (planned.len() - ok.len()) as u64,
        ..ExpectedFec::default()
    };
    let mut marked_blocks = 0;
    for p in planned.iter().filter(|p| !p.correctable) {
        let (first, len) = match fec.kind {
            Fec::Rs => rs_blocks(p.codeword, period),
            _ => (p.codeword * 32, 32),
        };
        marked_blocks += len;
        let end = first + len;
        let frames = placed
            .iter()
            .filter(|&&(_, b, lane, n)| b < end && (b * 8 + lane + 8 + n) / 8 >= first)
            .map(|&(i, ..)| i)
            .collect();
        e.uncorrectable
            .push(ExpectedUncorrectable { bit: p.bit, frames });
    }
    let pcs = &mut g.expectation.pcs;
    match (e.uncorrected_codewords, rs) {
        (0, _) => {}
        // Error indication: every block of the codeword reaches the PCS invalid.
        (_, true) => {
            pcs.invalid_headers = pcs.invalid_headers.map(|n| n + marked_blocks);
            pcs.errored_blocks = pcs.errored_blocks.map(|n| n + marked_blocks);
        }
        // Clause 74 passes the burst on as received: what it does depends on the data.
        (_, false) => {
            pcs.invalid_headers = None;
            pcs.errored_blocks = None;
        }
    }
    Ok(e)
}

/// Each frame of a clean decode of `g`'s line blocks: index, `/S/` block and lane, octets
/// after the SFD.
fn placements(g: &Generated, rate: crate::fec::Rate) -> Result<Vec<(u64, u64, u64, u64)>, String> {
    use crate::rx::{ReceivedFrame, RxChain, RxInput};
    let input = RxInput::Blocks {
        scrambled: true,
        descrambler_state: Some(g.expectation.scrambler_state),
    };
    let mut rx = RxChain::new(&rx_options(g, rate), input, Vec::<ReceivedFrame>::new());
    rx.push_blocks(&g.line);
    let (_, _, got) = rx.finish().map_err(|e| e.to_string())?;
    Ok(got
        .iter()
        .map(|f| {
            (
                f.index,
                f.start.block,
                u64::from(f.start.lane),
                f.len as u64,
            )
        })
        .collect())
}

fn rx_options(g: &Generated, rate: crate::fec::Rate) -> crate::rx::RxOptions {
    crate::Options {
        max_frame_length: Some(g.expectation.max_frame_length),
        max_events: 100,
        rate,
        ..crate::Options::default()
    }
    .rx()
}

/// The outcomes of the frames an uncorrectable unit hit, as the model's receiver below the
/// FEC makes them of the faulted line (read offline, as `check` reads it); of every frame, and
/// the PCS counts, when the FEC changed more (`reshaped`, or hi_ber rose).
fn model_outcomes(
    g: &mut Generated,
    rate: crate::fec::Rate,
    fec: &FecOptions,
    line: &[u8],
    reshaped: bool,
) -> Result<(), String> {
    let hit: Vec<u64> = g
        .expectation
        .fec
        .iter()
        .flat_map(|e| {
            e.uncorrectable
                .iter()
                .flat_map(|u| u.frames.iter().copied())
        })
        .collect();
    if hit.is_empty() && !reshaped {
        return Ok(());
    }
    // A dump is decoded from its first marker, as `check` and `decode` do.
    let mut fec = *fec;
    fec.rs.lock_markers = 1;
    let view = crate::live::RxView::Offline;
    let mut rx = FecRxChain::with_view(&rx_options(g, rate), &fec, view, Vec::new())?;
    rx.push_bytes(line);
    let (pcs, _, received, _) = rx.finish().map_err(|e| e.to_string())?;
    let every = reshaped || !pcs.hi_ber_episodes.is_empty();
    let expected = g.expectation.judged();
    // The judge `check` runs: each frame identified as the MAC delivers it.
    let mut judge = crate::judge::Comparer::new(&expected);
    for r in &received {
        judge.push(&r.borrowed());
    }
    let cmp = judge.finish();
    for (f, r) in g.expectation.frames.iter_mut().zip(&cmp.frames) {
        if every || hit.contains(&f.index) {
            f.outcome = match (r.status, r.class) {
                (crate::judge::Status::Missing, _) | (_, None) => "dropped",
                (_, Some(c)) => c,
            };
        }
    }
    g.expectation.outcomes_from = if every {
        g.expectation.pcs = crate::gen::ExpectedPcs {
            invalid_headers: Some(pcs.invalid_headers),
            errored_blocks: Some(pcs.errored_blocks),
            hi_ber_episodes: Some(pcs.hi_ber_episodes.len() as u64),
            lock_losses: pcs.lock_losses.len() as u64,
            link_fault_changes: pcs.link_fault_changes.len() as u64,
        };
        "the model's decode of the FEC's line (the FEC changed what the PCS receives: a hostile stream's blocks its transcoding cannot carry, or hi_ber raised by uncorrectable codewords)"
    } else {
        "the scenario; the frames an uncorrectable FEC block or codeword hit: the model's decode of the faulted line"
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ones_before_shifts_the_line_by_any_bit_count() {
        let line = [0b1010_0101u8, 0x3c];
        assert_eq!(ones_before(&line, 0), line);
        assert_eq!(ones_before(&line, 8), [0xff, 0b1010_0101, 0x3c]);
        assert_eq!(
            ones_before(&line, 3),
            [0b0010_1111, 0b1110_0101, 0b0000_0001]
        );
    }

    #[test]
    fn rs_codewords_carry_76_blocks_after_a_marker_and_80_otherwise() {
        assert_eq!(rs_blocks(0, 1024), (0, 76));
        assert_eq!(rs_blocks(1, 1024), (76, 80));
        assert_eq!(rs_blocks(3, 4), (236, 80));
        assert_eq!(rs_blocks(4, 4), (316, 76));
        assert_eq!(rs_blocks(5, 4), (392, 80));
    }
}
