//! The stimulus of each case: a receive case's line ([`Line`]), a transmit case's frames.

use super::line::{control_block, eblock, ordered_set, ordered_set_block, Line, SendOptions};
use super::random::PyRandom;
use super::Params;
use pcs_core::Block;

/// Idle blocks before a receive case's stimulus: block lock (64 headers) with room.
pub const LEAD: usize = 200;
/// Idle blocks after it.
pub const SETTLE: usize = 300;

type Built = Result<(), String>;

/// A frame of `length` octets without FCS: DA, SA, an experimental EtherType, the index,
/// then octets drawn from `rng`.
pub fn frame(i: usize, length: usize, rng: &mut PyRandom) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xb5];
    f.extend_from_slice(&(i as u16).to_be_bytes());
    f.extend(rng.randbytes(length.saturating_sub(f.len())));
    f.truncate(length);
    f
}

fn lengths(rng: &mut PyRandom, n: usize, lo: usize, hi: usize) -> Vec<usize> {
    (0..n).map(|_| rng.randint(lo, hi)).collect()
}

fn frames(lens: &[usize], rng: &mut PyRandom) -> Vec<Vec<u8>> {
    lens.iter()
        .enumerate()
        .map(|(i, &n)| frame(i, n, rng))
        .collect()
}

fn send(l: &mut Line, frames: &[Vec<u8>]) -> Result<Vec<usize>, String> {
    l.send(frames, SendOptions::default(), &[])
}

fn lane4() -> SendOptions {
    SendOptions {
        lane4_starts: true,
        ..SendOptions::default()
    }
}

fn os_block(kind: u8, seq: u8, signal: bool) -> Result<Block, String> {
    ordered_set_block(kind, seq, signal).ok_or_else(|| format!("no ordered set block {kind:#x}"))
}

/// A receive case's builder: the blocks between the lead and the settling idles.
pub type RxBuild = fn(&mut Line, &Params, &mut PyRandom) -> Built;

/// The receive case's line: [`LEAD`] idles, the case's blocks, [`SETTLE`] idles.
///
/// # Errors
/// The case's builder failed.
pub fn rx_line(build: RxBuild, p: &Params) -> Result<Line, String> {
    let mut l = Line::default();
    l.idle(LEAD);
    build(&mut l, p, &mut PyRandom::new(1))?;
    l.idle(SETTLE);
    Ok(l)
}

pub(super) fn rx_frames(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    let mut lens = vec![60, 64, 1514];
    lens.extend(lengths(rng, 20, 60, 1514));
    send(l, &frames(&lens, rng))?;
    l.idle(8);
    let lens = lengths(rng, 12, 60, 1514);
    l.send(&frames(&lens, rng), lane4(), &[])?;
    Ok(())
}

pub(super) fn rx_terminate_lanes(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    for lane4_starts in [false, true] {
        let fs: Vec<_> = (0..8).map(|i| frame(i, 60 + i, rng)).collect();
        let how = SendOptions {
            lane4_starts,
            ..SendOptions::default()
        };
        l.send(&fs, how, &[])?;
        l.idle(4);
    }
    Ok(())
}

pub(super) fn rx_ifg(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    for ifg in 5..16 {
        for dic in [true, false] {
            let fs: Vec<_> = (0..8).map(|i| frame(i, 60 + (i * 7) % 9, rng)).collect();
            let how = SendOptions {
                ifg,
                dic,
                ..SendOptions::default()
            };
            l.send(&fs, how, &[])?;
            l.idle(3);
        }
    }
    Ok(())
}

pub(super) fn rx_bad_fcs(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    let lens = lengths(rng, 10, 60, 1514);
    let fcs: Vec<_> = (0..10).map(|i| (i % 3 == 1).then_some([0; 4])).collect();
    l.send(&frames(&lens, rng), SendOptions::default(), &fcs)?;
    Ok(())
}

pub(super) fn rx_length_limits(l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    let m = p.max_frame_length;
    send(
        l,
        &frames(
            &[60, m.saturating_sub(4), m.saturating_sub(3), 2000, 9000, 60],
            rng,
        ),
    )?;
    l.idle(4);
    // a runt: given its FCS the model's transmitter sends a frame as it is, unpadded
    let fs = [frame(2, 40, rng), frame(3, 60, rng)];
    l.send(&fs, SendOptions::default(), &[Some([0; 4]), None])?;
    l.idle(1200); // a store-and-forward receiver is still delivering the 9004-octet frame
    Ok(())
}

pub(super) fn rx_bad_preamble(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    let idx = send(l, &frames(&[100; 6], rng))?;
    l.edit_octet(idx[1], 3, 0x54)?; // a preamble octet
    l.edit_octet(idx[3], 7, 0xd4) // the SFD
}

pub(super) fn rx_error_inside(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    let idx = send(l, &frames(&[300; 6], rng))?;
    l.replace_inside(idx[1], eblock(), 0.5)?; // /E/ in every lane inside the frame
    l.replace_inside(idx[3], control_block([0x1e; 8]), 0.2)?;
    let data = Block {
        sync: pcs_core::SyncHeader::DATA,
        payload: 0,
    };
    let before = l.blocks.clone();
    let pos = l.replace_inside(idx[4], data, 0.7)?; // a data block's header made invalid
    if let (Some(b), Some(was)) = (l.blocks.get_mut(pos), before.get(pos)) {
        *b = Block {
            sync: pcs_core::SyncHeader::from_bits(0),
            payload: was.payload,
        };
    }
    Ok(())
}

pub(super) fn rx_invalid_header_between(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    send(l, &frames(&[200; 3], rng))?;
    for hdr in [0, 3, 0, 3] {
        l.idle(20).raw(hdr, 0x1e);
    }
    l.idle(20);
    send(l, &frames(&[200; 3], rng))?;
    Ok(())
}

/// Idle, /LI/, each reserved control code, a signal ordered set, a reserved block type and
/// an invalid control code, each between frames.
pub(super) fn rx_control_codes(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    let mut blocks = vec![control_block([0x06; 8])]; // /LI/ (no EEE: a valid control code)
    blocks.extend([0x2d, 0x33, 0x4b, 0x55, 0x66, 0x78].map(|c| control_block([c; 8])));
    blocks.push(os_block(0x4b, 1, true)?); // /Fsig/ in lane 0
    blocks.push(Block {
        sync: pcs_core::SyncHeader::CONTROL,
        payload: 0x4c, // a reserved block type
    });
    blocks.push(control_block([0x01; 8])); // an invalid code
    for b in blocks {
        send(l, &[frame(0, 64, rng)])?;
        l.idle(2).block(b).idle(2);
    }
    send(l, &[frame(1, 64, rng)])?;
    Ok(())
}

/// Local Fault in every column an ordered set block of `kind` can carry, then cleared.
fn rx_os(kind: u8, l: &mut Line, rng: &mut PyRandom) -> Built {
    send(l, &[frame(0, 100, rng)])?;
    for _ in 0..8 {
        l.block(os_block(kind, 1, false)?).idle(1);
    }
    l.idle(200); // 128 columns without one: cleared
    send(l, &[frame(1, 100, rng)])?;
    Ok(())
}

pub(super) fn rx_os_4b(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    rx_os(0x4b, l, rng)
}

pub(super) fn rx_os_2d(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    rx_os(0x2d, l, rng)
}

pub(super) fn rx_os_55(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    rx_os(0x55, l, rng)
}

/// 0x66: an ordered set in lane 0 and a frame's /S/ in lane 4.
pub(super) fn rx_os_with_start(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    let fs = [frame(0, 100, rng), frame(1, 100, rng)];
    let idx = l.send(&fs, lane4(), &[])?;
    let (s_block, s_lane) = l.frames[idx[1]].start;
    if s_lane != 4 {
        return Err("the second frame's /S/ is not in lane 4".into());
    }
    l.edit_lanes(s_block, &ordered_set(1, false)) // /Q/ 00 00 01 in lanes 0..3
}

pub(super) fn rx_link_fault(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    send(l, &[frame(0, 100, rng)])?;
    for _ in 0..40 {
        l.block(os_block(0x55, 1, false)?); // Local Fault: raised after 4, frames held off
    }
    l.idle(200);
    for _ in 0..40 {
        l.block(os_block(0x55, 2, false)?); // Remote Fault
    }
    l.idle(200);
    for _ in 0..3 {
        l.block(os_block(0x4b, 1, false)?).idle(2); // three only: no fault
    }
    l.idle(200);
    send(l, &[frame(1, 100, rng)])?;
    Ok(())
}

/// One invalid header every 5 blocks, `n` times: never 16 in 64 (no lock loss).
fn rx_ber(n: usize, l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    send(l, &[frame(0, 100, rng)])?;
    for _ in 0..n {
        l.idle(4).raw(0, 0x1e);
    }
    if n >= 16 {
        // the window ends (<= 2 windows) and hi_ber clears
        let w = p.ber_window_blocks;
        l.idle(2 * w + w / 50);
    }
    l.idle(100);
    send(l, &[frame(1, 100, rng)])?;
    Ok(())
}

pub(super) fn rx_hi_ber_15(l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    rx_ber(15, l, p, rng)
}

pub(super) fn rx_hi_ber_16(l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    rx_ber(16, l, p, rng)
}

/// Blocks between a BER burst's invalid headers: one in 5, never 16 in 64 (no lock loss).
const BER_SPACING: usize = 5;

/// Blocks a placed BER burst keeps from either end of its window: the DUT's window may start
/// up to this much before or after the model's (a timer that runs from reset rather than
/// from block lock as in Fig. 49-15, a pipeline, a slip).
pub const BER_PHASE_MARGIN: usize = 128;

/// The block the model's BER timer starts at: block lock after the lead's first 64 headers
/// (the monitor waits in BER_MT_INIT until then, Fig. 49-15).
const MODEL_WINDOW_START: usize = 64;

/// The blocks a burst of `n` invalid headers keeps from each end of the DUT's window when
/// placed in its middle: at least [`BER_PHASE_MARGIN`], so the DUT counts all `n` in one
/// window whatever its window's phase.
///
/// # Errors
/// The window is too short for that, with the length it needs.
pub fn burst_fits(n: usize, p: &Params) -> Result<usize, String> {
    let span = n * BER_SPACING;
    let w = p.ber_window_blocks;
    let need = span + 2 * BER_PHASE_MARGIN;
    if w < need {
        return Err(format!(
            "the DUT's BER window of {w} blocks is too short for {n} invalid headers (one in {BER_SPACING}: {span} blocks) placed in one window with {BER_PHASE_MARGIN} blocks to spare either side for its phase: expected {need} blocks or more"
        ));
    }
    Ok((w - span) / 2)
}

/// `n` invalid headers, one in 5, in the middle of one of the model's BER windows (the
/// DUT's window may start [`BER_PHASE_MARGIN`] blocks earlier or later and still count them
/// all in one), the rest of that window clean; with `clears`, also the next window clean
/// (hi_ber clears at its end), and the margin.
fn rx_ber_placed(n: usize, clears: bool, l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    send(l, &[frame(0, 100, rng)])?;
    let w = p.ber_window_blocks;
    let gap = burst_fits(n, p)?;
    let pos = l.blocks.len();
    // the first window (starting at MODEL_WINDOW_START + k w) whose middle is still ahead
    let k = pos.saturating_sub(MODEL_WINDOW_START + gap).div_ceil(w);
    l.idle(MODEL_WINDOW_START + k * w + gap - pos);
    for _ in 0..n {
        l.raw(0, 0x1e).idle(BER_SPACING - 1);
    }
    let rest = gap + BER_SPACING - 1;
    l.idle(rest + if clears { w } else { 0 } + BER_PHASE_MARGIN + 100);
    send(l, &[frame(1, 100, rng)])?;
    Ok(())
}

/// 25GBASE-R: 96 invalid headers in one window, one short of the threshold (U: 97 in 2 ms,
/// `BerConfig::TWENTY_FIVE_GBASE_R`); a 25G PCS that kept the 10G monitor trips on them.
pub(super) fn rx_hi_ber_96(l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    rx_ber_placed(96, false, l, p, rng)
}

/// 25GBASE-R: 97 invalid headers in one window: hi_ber rises, clears after a clean window.
pub(super) fn rx_hi_ber_97(l: &mut Line, p: &Params, rng: &mut PyRandom) -> Built {
    rx_ber_placed(97, true, l, p, rng)
}

pub(super) fn rx_lock_loss(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    send(l, &[frame(0, 100, rng)])?;
    for _ in 0..16 {
        l.raw(3, 0x1e); // 16 invalid headers in a row: lock lost (49.2.9)
    }
    l.idle(2000); // relock from any offset
    send(l, &[frame(1, 100, rng)])?;
    Ok(())
}

pub(super) fn rx_bit_slip(l: &mut Line, _: &Params, rng: &mut PyRandom) -> Built {
    send(l, &[frame(0, 100, rng)])?;
    l.idle(50).slip(13); // 13 bits inserted in the line: the boundary moves
    l.idle(3000);
    send(l, &[frame(1, 100, rng)])?;
    l.idle(50).slip(-29);
    l.idle(3000);
    send(l, &[frame(2, 100, rng)])?;
    Ok(())
}

/// A transmit case's frames, drawn from `random.Random(2)`.
pub type TxBuild = fn(&mut PyRandom) -> Vec<Vec<u8>>;

/// A transmit case's line for the DUT's receiver (unscrambled, one block a clock).
pub type ReceiveBuild = fn() -> Result<Line, String>;

/// 14..64 octets: a MAC client's frame holds at least DA, SA and type (4.2.3.3), the MAC
/// pads it to 60.
pub(super) fn tx_lengths(rng: &mut PyRandom) -> Vec<Vec<u8>> {
    let lens: Vec<usize> = (14..65).chain([1514, 1500, 100, 17]).collect();
    frames(&lens, rng)
}

pub(super) fn tx_dic(rng: &mut PyRandom) -> Vec<Vec<u8>> {
    let mut lens = [64, 65, 66, 67].repeat(4);
    lens.extend(lengths(rng, 16, 60, 300));
    frames(&lens, rng)
}

pub(super) fn tx_jumbo(rng: &mut PyRandom) -> Vec<Vec<u8>> {
    frames(&[60, 1514, 9000, 60], rng)
}

pub(super) fn tx_abort(rng: &mut PyRandom) -> Vec<Vec<u8>> {
    frames(&[200; 6], rng)
}

/// 40 frames of 60..300 octets: with the DUT's transmitter held off by the faults of
/// [`tx_link_fault_receive`], they last from before its Local Fault to after its Remote Fault
/// clears (about 25 clocks each).
pub(super) fn tx_link_fault(rng: &mut PyRandom) -> Vec<Vec<u8>> {
    let lens = lengths(rng, 40, 60, 300);
    frames(&lens, rng)
}

/// Clocks of idles on the DUT's receive line before its Local Fault: the lead (lock) and
/// 300 clocks of frames flowing.
pub const FAULT_AT: usize = 500;
/// Blocks of each fault (two sequence ordered sets a block: 300 columns, more than 128).
pub const FAULT_BLOCKS: usize = 150;
/// Idle blocks between the faults (the fault clears after 64: frames flow again).
pub const FAULT_GAP: usize = 300;

/// The DUT's receive line of `tx-link-fault` (unscrambled, one block a clock from the run's
/// first): idles, Local Fault in 0x55 blocks, idles, Remote Fault, idles.
pub(super) fn tx_link_fault_receive() -> Result<Line, String> {
    let mut l = Line::default();
    l.idle(FAULT_AT);
    for _ in 0..FAULT_BLOCKS {
        l.block(os_block(0x55, 1, false)?); // Local Fault in both columns
    }
    l.idle(FAULT_GAP);
    for _ in 0..FAULT_BLOCKS {
        l.block(os_block(0x55, 2, false)?); // Remote Fault
    }
    l.idle(SETTLE);
    Ok(l)
}
