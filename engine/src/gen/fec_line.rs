//! FEC stimulus: a generated stream's line blocks through the FEC (Clause 74 or Clause 108),
//! with faults planned on its FEC blocks or codewords, some within the code's power and some
//! beyond it, and the counters a receiver must report (`ExpectedFec`).

use super::{Generated, Rng};
use crate::fec::{
    ExpectedFec, ExpectedUncorrectable, Fec, FecEncoder, FecOptions, FecRxChain, PlannedFecFault,
};
use crate::inject::Fault;

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
/// codeword: `g.line` gains them) and plans faults from `seed`: `correctable` FEC blocks or
/// codewords get 1 to 7 symbol errors (RS-FEC) or a burst of 1 to 11 bits (Clause 74), and
/// `uncorrectable` get 8 to 12 symbols or a burst of 12 or 13 bits (every such burst is
/// detected). The first FEC blocks or codewords (lock) and RS-FEC marker codewords are left
/// alone. The expectation gains the `fec` counters; the outcomes of the frames an
/// uncorrectable one hits are the model's decode of the faulted line (the others stay the
/// scenario's), and its PCS counts are left unpredicted where they depend on the data.
///
/// # Errors
/// A FEC setting the standard refuses, or no room for the faults asked for.
pub fn fec_stimulus(
    g: &mut Generated,
    rate: crate::fec::Rate,
    fec: &FecOptions,
    correctable: usize,
    uncorrectable: usize,
    seed: u64,
) -> Result<FecStimulus, String> {
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
    let (unit_bits, first_free) = match fec.kind {
        Fec::Rs => (fec_core::rs::CODEWORD_BITS as u64, 1),
        _ => (fec_core::base_r::FEC_BLOCK_BITS as u64, 2),
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
    crate::inject::corrupt_line(&mut line, &faults)?;
    let expected = expect(g, rate, fec, &planned, period)?;
    g.expectation.fec = Some(ExpectedFec {
        codewords_on_line: units,
        ..expected
    });
    hit_outcomes(g, rate, fec, &line)?;
    Ok(FecStimulus { line, faults })
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
/// FEC makes them of the faulted line.
fn hit_outcomes(
    g: &mut Generated,
    rate: crate::fec::Rate,
    fec: &FecOptions,
    line: &[u8],
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
    if hit.is_empty() {
        return Ok(());
    }
    // A dump is decoded from its first marker, as `check` and `decode` do.
    let mut fec = *fec;
    fec.rs.lock_markers = 1;
    let mut rx = FecRxChain::new(&rx_options(g, rate), &fec, Vec::new())?;
    rx.push_bytes(line);
    let (_, _, received, _) = rx.finish().map_err(|e| e.to_string())?;
    let expected = g.expectation.judged();
    // The judge `check` runs: each frame identified as the MAC delivers it.
    let mut judge = crate::judge::Comparer::new(&expected);
    for r in &received {
        judge.push(&r.borrowed());
    }
    let cmp = judge.finish();
    for (f, r) in g.expectation.frames.iter_mut().zip(&cmp.frames) {
        if hit.contains(&f.index) {
            f.outcome = match (r.status, r.class) {
                (crate::judge::Status::Missing, _) | (_, None) => "dropped",
                (_, Some(c)) => c,
            };
        }
    }
    g.expectation.outcomes_from =
        "the scenario; the frames an uncorrectable FEC block or codeword hit: the model's decode of the faulted line";
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rs_codewords_carry_76_blocks_after_a_marker_and_80_otherwise() {
        assert_eq!(rs_blocks(0, 1024), (0, 76));
        assert_eq!(rs_blocks(1, 1024), (76, 80));
        assert_eq!(rs_blocks(3, 4), (236, 80));
        assert_eq!(rs_blocks(4, 4), (316, 76));
        assert_eq!(rs_blocks(5, 4), (392, 80));
    }
}
