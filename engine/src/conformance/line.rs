//! The line a receive case sends: unscrambled 66-bit blocks from the model's transmitter
//! ([`SimTx`]) and from XGMII transfers through pcs-core's block encoder, so that a case can
//! put what no conforming transmitter sends (an `/E/` inside a frame, a reserved block type,
//! an invalid sync header) where it wants; then scrambled (49.2.6) and cut into 66-bit serdes
//! clocks, with the bits the case inserts or deletes (a slipping line).

use crate::options::Options;
use crate::sim::{Mark, SimTx};
use mac_core::tx::StartLanes;
use pcs_core::{
    decode_block, encode_word, Block, ControlCode, Scrambler, SyncHeader, XgmiiWord,
    SCRAMBLER_DEFAULT_STATE,
};
use std::collections::{BTreeMap, VecDeque};

/// XGMII control characters (Table 46-3): idle, error, sequence and signal ordered set.
const I: u8 = 0x07;
const E: u8 = 0xfe;
const Q: u8 = 0x9c;
const FSIG: u8 = 0x5c;

/// One lane of an XGMII transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// A control character.
    K(u8),
    /// A data octet.
    D(u8),
}

/// The transfer of lanes 0.. (lane 0 first).
pub fn transfer(lanes: &[Lane]) -> XgmiiWord {
    let mut w = XgmiiWord { data: 0, ctrl: 0 };
    for (k, lane) in lanes.iter().enumerate().take(8) {
        let octet = match *lane {
            Lane::K(c) => {
                w.ctrl |= 1 << k;
                c
            }
            Lane::D(d) => d,
        };
        w.data |= u64::from(octet) << (8 * k);
    }
    w
}

/// The block pcs-core's stateless encoder makes of a transfer.
pub fn encode(lanes: &[Lane]) -> Block {
    encode_word(transfer(lanes)).block
}

/// A control block of eight `/I/`.
pub fn idle() -> Block {
    encode(&[Lane::K(I); 8])
}

/// Eight `/E/` (`EBLOCK_T`).
pub fn eblock() -> Block {
    encode(&[Lane::K(E); 8])
}

/// A 0x1E block of eight seven-bit control codes, lane 0 first, valid ones or not (a code
/// of more than seven bits keeps its low seven).
pub fn control_block(codes: [u8; 8]) -> Block {
    Block::from_control_codes(
        codes.map(|c| ControlCode::try_new(c & 0x7f).unwrap_or(ControlCode::IDLE)),
    )
}

/// The four lanes of an ordered set: `/Q/` (or `/Fsig/`) and data 00 00 `seq` (1 Local
/// Fault, 2 Remote Fault).
pub fn ordered_set(seq: u8, signal: bool) -> [Lane; 4] {
    let o = if signal { FSIG } else { Q };
    [Lane::K(o), Lane::D(0), Lane::D(0), Lane::D(seq)]
}

/// The block of an ordered set of `kind`: 0x4b (lane 0, idles after it), 0x2d (lane 4,
/// after idles) or 0x55 (both) (Figure 49-7); `None` for another kind.
pub fn ordered_set_block(kind: u8, seq: u8, signal: bool) -> Option<Block> {
    let (os, idles) = (ordered_set(seq, signal), [Lane::K(I); 4]);
    let halves = match kind {
        0x4b => [os, idles],
        0x2d => [idles, os],
        0x55 => [os, os],
        _ => return None,
    };
    Some(encode(halves.as_flattened()))
}

/// A frame sent on the line: its octets (DA to the end of the payload) and where its `/S/`
/// and `/T/` went (block index, lane).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentFrame {
    /// DA to the end of the payload, as given.
    pub frame: Vec<u8>,
    /// The block and lane of its `/S/`.
    pub start: (usize, u8),
    /// The block and lane of its `/T/`.
    pub end: (usize, u8),
}

/// How frames go out of [`Line::send`].
#[derive(Clone, Copy, Debug)]
pub struct SendOptions {
    /// Inter-frame gap, octets.
    pub ifg: u16,
    /// The deficit idle count on.
    pub dic: bool,
    /// Every `/S/` in lane 4 (else lane 0 or 4, as the gap allows).
    pub lane4_starts: bool,
}

impl Default for SendOptions {
    fn default() -> Self {
        Self {
            ifg: 12,
            dic: true,
            lane4_starts: false,
        }
    }
}

/// Unscrambled blocks in order, the frames sent among them, and the line's slips (bits
/// inserted, > 0, or deleted, < 0, before a block index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// The blocks before scrambling.
    pub blocks: Vec<Block>,
    /// Block index -> bits inserted (> 0) or deleted (< 0) there.
    pub slips: BTreeMap<usize, i32>,
    /// The frames sent, in order.
    pub frames: Vec<SentFrame>,
}

impl Line {
    /// `n` idle blocks.
    pub fn idle(&mut self, n: usize) -> &mut Self {
        self.blocks.extend(std::iter::repeat_n(idle(), n));
        self
    }

    /// One block as given.
    pub fn block(&mut self, b: Block) -> &mut Self {
        self.blocks.push(b);
        self
    }

    /// A block of a raw sync header (0..3) and payload.
    pub fn raw(&mut self, header: u8, payload: u64) -> &mut Self {
        self.block(Block {
            sync: SyncHeader::from_bits(header),
            payload,
        })
    }

    /// `bits` inserted (> 0) or deleted (< 0) in the line before the next block.
    pub fn slip(&mut self, bits: i32) -> &mut Self {
        *self.slips.entry(self.blocks.len()).or_insert(0) += bits;
        self
    }

    /// Frames through the model's transmitter (MAC + encoder, unscrambled) back to back;
    /// `fcs`: per frame `None` or the four octets sent instead of its FCS (none given: all
    /// right). Returns the indices of the frames in [`Line::frames`].
    ///
    /// # Errors
    /// The transmitter refused a frame.
    pub fn send(
        &mut self,
        frames: &[Vec<u8>],
        how: SendOptions,
        fcs: &[Option<[u8; 4]>],
    ) -> Result<Vec<usize>, String> {
        let opt = Options {
            ifg: how.ifg,
            dic: how.dic,
            idle_blocks: 0,
            start_lanes: if how.lane4_starts {
                StartLanes::Lane4
            } else {
                StartLanes::Both
            },
            ..Options::default()
        };
        let mut tx = SimTx::new(&opt.tx(), 0);
        let first = self.frames.len();
        let mut ids = BTreeMap::new();
        for (i, f) in frames.iter().enumerate() {
            let given = fcs.get(i).copied().flatten();
            ids.insert(tx.send(f, given).map_err(|e| e.to_string())?, first + i);
            self.frames.push(SentFrame {
                frame: f.clone(),
                start: (0, 0),
                end: (0, 0),
            });
        }
        let mut ends = 0;
        while ends < frames.len() || self.blocks.len() < 2 {
            let c = tx.clock().map_err(|e| e.to_string())?;
            for m in &c.marks {
                let Some(rec) = ids.get(&m.id).and_then(|&k| self.frames.get_mut(k)) else {
                    continue;
                };
                match m.mark {
                    Mark::Start => rec.start = (self.blocks.len(), m.lane),
                    Mark::End => {
                        rec.end = (self.blocks.len(), m.lane);
                        ends += 1;
                    }
                    Mark::Sfd | Mark::Data => {}
                }
            }
            self.blocks.push(c.unscrambled);
        }
        Ok((first..self.frames.len()).collect())
    }

    fn sent(&self, index: usize) -> Result<&SentFrame, String> {
        self.frames
            .get(index)
            .ok_or_else(|| format!("no frame {index} on the line"))
    }

    fn at(&self, block: usize) -> Result<Block, String> {
        self.blocks
            .get(block)
            .copied()
            .ok_or_else(|| format!("no block {block} on the line"))
    }

    fn put(&mut self, block: usize, b: Block) -> Result<(), String> {
        let slot = self
            .blocks
            .get_mut(block)
            .ok_or_else(|| format!("no block {block} on the line"))?;
        *slot = b;
        Ok(())
    }

    /// Replaces the octet `offset` lanes after frame `index`'s `/S/` (1..6 the preamble, 7
    /// the SFD) in its block, decoded and encoded again.
    ///
    /// # Errors
    /// No such frame, or that lane holds no data octet.
    pub fn edit_octet(&mut self, index: usize, offset: usize, value: u8) -> Result<(), String> {
        let (s_block, s_lane) = self.sent(index)?.start;
        let pos = usize::from(s_lane) + offset;
        let (b, lane) = (s_block + pos / 8, pos % 8);
        let mut w = decode_block(self.at(b)?).word;
        if w.ctrl >> lane & 1 == 1 {
            return Err(format!("block {b} lane {lane} holds no data octet"));
        }
        let shift = 8 * lane;
        w.data = (w.data & !(0xff << shift)) | u64::from(value) << shift;
        self.put(b, encode_word(w).block)
    }

    /// Replaces lanes 0.. of block `block`'s transfer with `lanes` and encodes it again.
    ///
    /// # Errors
    /// No such block.
    pub fn edit_lanes(&mut self, block: usize, lanes: &[Lane]) -> Result<(), String> {
        let mut w = decode_block(self.at(block)?).word;
        let new = transfer(lanes);
        let n = lanes.len().min(8);
        let mask = if n == 8 { !0 } else { (1u64 << (8 * n)) - 1 };
        let cmask = ((1u16 << n) - 1) as u8;
        w.data = (w.data & !mask) | new.data;
        w.ctrl = (w.ctrl & !cmask) | new.ctrl;
        self.put(block, encode_word(w).block)
    }

    /// Replaces a data block inside frame `index` (at `where_` of its length) with `b`;
    /// returns its position.
    ///
    /// # Errors
    /// No such frame, or it has no data block.
    pub fn replace_inside(&mut self, index: usize, b: Block, where_: f64) -> Result<usize, String> {
        let f = self.sent(index)?;
        let inner: Vec<usize> = (f.start.0 + 1..f.end.0)
            .filter(|&i| {
                self.blocks
                    .get(i)
                    .is_some_and(|x| x.sync == SyncHeader::DATA)
            })
            .collect();
        let k = ((inner.len() as f64 * where_) as usize).min(inner.len().saturating_sub(1));
        let pos = *inner
            .get(k)
            .ok_or_else(|| format!("frame {index} has no data block to replace"))?;
        self.put(pos, b)?;
        Ok(pos)
    }

    /// The line: the blocks scrambled from the all-ones state (49.2.6).
    pub fn scrambled(&self) -> Vec<Block> {
        scramble(&self.blocks, SCRAMBLER_DEFAULT_STATE).0
    }

    /// The 66-bit serdes clocks of the line as a receiver without bit slips takes them
    /// ([`Cursor`]), every one the line fills.
    pub fn units(&self) -> Vec<Block> {
        let mut cursor = Cursor::new(self.scrambled(), self.slips.clone());
        let mut out = Vec::with_capacity(self.blocks.len());
        while cursor.left() >= 2 {
            out.push(cursor.take(false));
        }
        out
    }
}

/// Scrambles blocks from `state` (the payloads); returns the line and the state after it.
pub fn scramble(blocks: &[Block], state: u64) -> (Vec<Block>, u64) {
    let mut payloads: Vec<u64> = blocks.iter().map(|b| b.payload).collect();
    let mut s = Scrambler::new(state);
    s.scramble_slice(&mut payloads);
    let line = blocks
        .iter()
        .zip(payloads)
        .map(|(b, payload)| Block {
            sync: b.sync,
            payload,
        })
        .collect();
    (line, s.state())
}

/// Reads a line as 66-bit serdes clocks; `take(true)` first drops one bit, as a serdes does
/// on a receiver's bit slip request. The line's own slips apply as their block is reached:
/// inserted bits alternate zeros and ones; deleted bits are the oldest not yet taken.
pub struct Cursor {
    blocks: Vec<Block>,
    slips: BTreeMap<usize, i32>,
    i: usize,
    bits: VecDeque<bool>,
}

impl Cursor {
    /// A cursor at the line's first bit.
    pub fn new(blocks: Vec<Block>, slips: BTreeMap<usize, i32>) -> Self {
        Self {
            blocks,
            slips,
            i: 0,
            bits: VecDeque::with_capacity(256),
        }
    }

    fn next_block(&mut self) {
        let slip = self.slips.get(&self.i).copied().unwrap_or(0);
        if slip > 0 {
            self.bits.extend((0..slip).map(|k| k % 2 == 1));
        }
        let b = self.blocks.get(self.i).copied().unwrap_or(Block {
            sync: SyncHeader::CONTROL,
            payload: 0,
        });
        self.i += 1;
        let unit = u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2;
        self.bits.extend((0..66).map(|k| unit >> k & 1 == 1));
        if slip < 0 {
            let k = (slip.unsigned_abs() as usize).min(self.bits.len());
            self.bits.drain(..k);
        }
    }

    /// Whole blocks not yet read.
    pub fn left(&self) -> usize {
        self.blocks.len().saturating_sub(self.i)
    }

    /// The next 66 bits as a block (sync header bits first).
    pub fn take(&mut self, slip: bool) -> Block {
        while self.bits.len() < 67 {
            self.next_block();
        }
        if slip {
            self.bits.pop_front();
        }
        let unit = self
            .bits
            .drain(..66)
            .enumerate()
            .fold(0u128, |u, (k, bit)| u | u128::from(bit) << k);
        Block {
            sync: SyncHeader::from_bits((unit & 3) as u8),
            payload: (unit >> 2) as u64,
        }
    }
}
