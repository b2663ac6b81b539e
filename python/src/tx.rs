//! `TxModel`: the engine's test-bench transmitter ([`SimTx`], on the live TX model the C ABI
//! runs too), one block a call, with the line's faults, bit offset and bit order applied to
//! what it hands out.

use crate::{guard, value_err, Pair};
use baser_engine::fec::{Fec, Rate};
use baser_engine::inject::{Fault, FaultChannel};
use baser_engine::sim::{Mark, Marked, SimTx};
use baser_engine::tx::{OrderedSet, TxOptions};
use mac_core::tx::{StartLanes, TxConfig};
use pcs_core::Block;
use pyo3::prelude::*;

/// Event kinds of [`TxModel::next`].
const EV_START: u8 = 0;
const EV_SFD: u8 = 1;
const EV_END: u8 = 2;
const EV_DATA: u8 = 3;

/// Events of one block: `(kind, frame id, lane)`.
type Events = Option<Vec<(u8, u64, u8)>>;

fn events(b: &Marked) -> Events {
    (!b.marks.is_empty()).then(|| {
        b.marks
            .iter()
            .map(|m| {
                let kind = match m.mark {
                    Mark::Start => EV_START,
                    Mark::Sfd => EV_SFD,
                    Mark::End => EV_END,
                    Mark::Data => EV_DATA,
                };
                (kind, m.id, m.lane)
            })
            .collect()
    })
}

/// The 66 bits of a unit.
const UNIT_MASK: u128 = (1 << 66) - 1;

/// Bits in order, taken 66 at a time.
#[derive(Default)]
struct BitQueue {
    bytes: std::collections::VecDeque<u8>,
    acc: u128,
    bits: u32,
}

impl BitQueue {
    /// The next 66 bits, if that many are there.
    fn take66(&mut self) -> Option<u128> {
        while self.bits < 66 {
            let b = self.bytes.pop_front()?;
            self.acc |= u128::from(b) << self.bits;
            self.bits += 8;
        }
        let unit = self.acc & UNIT_MASK;
        self.acc >>= 66;
        self.bits -= 66;
        Some(unit)
    }
}

fn unit_of(b: Block) -> u128 {
    u128::from(b.sync.to_bits()) | u128::from(b.payload) << 2
}

fn start_lanes(lane4_starts: bool) -> StartLanes {
    if lane4_starts {
        StartLanes::Lane4
    } else {
        StartLanes::Both
    }
}

/// The TX chain, one block per clock: the engine's test-bench transmitter (one continuous
/// line; a frame given while the line is idle starts as soon as the gap allows, frames given
/// together go back to back with the deficit idle count; settings changed between frames;
/// USXGMII rate replication), with the serdes' bit offset and bit order applied to what it
/// hands out.
#[pyclass(module = "baser._baser")]
pub struct TxModel {
    sim: SimTx,
    scrambled: bool,
    bit_offset: u32,
    /// The unit handed out last, before the bit offset (its last bits start the next one).
    last_unit: u128,
    reverse: bool,
    /// Faults on the line (`inject`): the channel, and its bits not handed out yet.
    faults: Option<(FaultChannel, BitQueue)>,
    /// The line rate and the FEC below the PCS.
    rate: Rate,
    fec: Fec,
}

impl TxModel {
    /// The 66 line bits of a unit moved by the bit offset, and bit reversed if asked.
    fn out(&mut self, unit: u128) -> Pair {
        // The last `bit_offset` bits of the unit before, then this one's first (a 132-bit
        // `last | unit << 66` would not fit a u128: it lost the unit's bits 62..65).
        let moved = match self.bit_offset {
            0 => unit,
            n => (self.last_unit >> (66 - n) | unit << n) & UNIT_MASK,
        };
        self.last_unit = unit;
        let (h, p) = ((moved & 3) as u8, (moved >> 2) as u64);
        if self.reverse {
            (((h & 1) << 1) | (h >> 1), p.reverse_bits())
        } else {
            (h, p)
        }
    }

    fn clock(&mut self) -> PyResult<Marked> {
        self.sim.clock().map_err(|e| value_err(e.to_string()))
    }
}

#[pymethods]
impl TxModel {
    #[new]
    #[pyo3(signature = (*, profile="ieee", ifg=12, dic=true, dic_mode=None, pad=true,
                        seed=None, scrambled=true, reverse=false, lane4_starts=false,
                        inject=Vec::new(), replication=0, rate="10g", fec="none",
                        rs_marker_period=1024))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        profile: &str,
        ifg: u16,
        dic: bool,
        dic_mode: Option<&str>,
        pad: bool,
        seed: Option<u64>,
        scrambled: bool,
        reverse: bool,
        lane4_starts: bool,
        inject: Vec<String>,
        replication: u32,
        rate: &str,
        fec: &str,
        rs_marker_period: u32,
    ) -> PyResult<Self> {
        let (rate, fec) = crate::line(rate, fec, rs_marker_period)?;
        if fec.kind != Fec::None && (replication > 0 || !scrambled) {
            return Err(value_err(format!(
                "fec={}: the FEC's line is scrambled blocks without USXGMII rate replication (scrambled=True, replication=0)",
                fec.kind
            )));
        }
        let opt = crate::tx_options(
            crate::profile(profile)?,
            ifg,
            dic,
            dic_mode,
            pad,
            seed,
            0,
            start_lanes(lane4_starts),
        )?;
        let sim = match fec.kind {
            Fec::None => SimTx::new(&opt, replication),
            _ => SimTx::with_fec(&opt, rate, &fec).map_err(value_err)?,
        };
        let mut model = Self {
            sim,
            scrambled,
            bit_offset: 0,
            last_unit: 0,
            reverse,
            faults: None,
            rate,
            fec: fec.kind,
        };
        for spec in inject {
            model.inject(&spec)?;
        }
        Ok(model)
    }

    /// New MAC settings and USXGMII rate replication (each 4-octet column sent `replication +
    /// 1` times: 9 for 1 Gb/s; 0: off), taken at once if no frame is waiting or under way,
    /// else once the last of them is sent; the line goes on from the scrambler state reached.
    #[pyo3(signature = (*, ifg=12, dic=true, dic_mode=None, lane4_starts=false, replication=0))]
    fn configure(
        &mut self,
        ifg: u16,
        dic: bool,
        dic_mode: Option<&str>,
        lane4_starts: bool,
        replication: u32,
    ) -> PyResult<()> {
        if self.fec != Fec::None && replication > 0 {
            return Err(value_err(format!(
                "replication={replication}: no USXGMII rate replication below a FEC (fec={})",
                self.fec
            )));
        }
        // The settings in use (profile, padding) with the MAC's new gap and starts.
        let cur = *self.sim.options().0;
        let opt = TxOptions {
            mac: TxConfig {
                ifg_octets: ifg,
                dic: crate::dic_mode(dic_mode, dic, cur.profile)?,
                start_lanes: start_lanes(lane4_starts),
                ..cur.mac
            },
            ..cur
        };
        self.sim.configure(&opt, replication);
        Ok(())
    }

    /// Copies of each column (USXGMII rate replication) in use, or given to be.
    #[getter]
    fn replication(&self) -> u32 {
        self.sim.options().1
    }

    /// The MAC starts over (a reset): the frame under way is dropped, the frames waiting go
    /// out after it with their ids. Returns the ids of the frames dropped.
    fn restart(&mut self) -> Vec<u64> {
        self.sim.restart()
    }

    /// Adds a fault on the line (the `--inject` syntax of `baser encode`: `flip:BIT`,
    /// `burst:BIT:LEN`, `ber:RATE[:SEED]`, `header:BLOCK`, `slip:BIT:+N|-N`, `drop:BLOCK`,
    /// `dup:BLOCK`), its positions counted from the next block this model sends (block 0 =
    /// that block, bit 0 = its first line bit). Given to the constructor, from the first
    /// block. Slips, drops and duplicates move the stream: a receiver must find lock again.
    fn inject(&mut self, spec: &str) -> PyResult<()> {
        let f = Fault::parse(spec).map_err(value_err)?;
        if self.fec != Fec::None
            && matches!(
                f,
                Fault::Header(_) | Fault::Drop(_) | Fault::Duplicate(_) | Fault::Slip(..)
            )
        {
            return Err(value_err(format!(
                "`{spec}`: below a FEC (fec={}) the line is bits, not blocks: flip:BIT, burst:BIT:LEN, ber:RATE[:SEED] or symbols:CODEWORD:N",
                self.fec
            )));
        }
        let (channel, _) = self
            .faults
            .get_or_insert_with(|| (FaultChannel::new(&[]), BitQueue::default()));
        channel.add(&f);
        Ok(())
    }

    /// Sends an ordered set in place of idle columns from the next transfer made on: `value`
    /// its three octets (first most significant), `signal` `/Fsig/` rather than `/Q/`
    /// (sequence: link fault signalling); `value=None`: idles again.
    #[pyo3(signature = (value=None, signal=false))]
    fn set_ordered_set(&mut self, value: Option<u32>, signal: bool) -> PyResult<()> {
        if value.is_some_and(|v| v > 0xff_ffff) {
            return Err(value_err(
                "an ordered set carries 3 octets: value 0..0xffffff",
            ));
        }
        self.sim
            .set_idle_fill(value.map(|value| OrderedSet { signal, value }));
        Ok(())
    }

    /// Line bits the faults flipped so far (positions from the first block through the
    /// channel).
    #[getter]
    fn flipped(&self) -> Vec<u64> {
        self.faults
            .as_ref()
            .map(|(c, _)| c.flipped.clone())
            .unwrap_or_default()
    }

    /// Gives the MAC a frame (DA to the end of the payload; with `fcs`, sent as is with that
    /// FCS and no padding). It starts as soon as the gap allows, from the next block on.
    /// Returns its id, which the events of [`TxModel::next`] name.
    #[pyo3(signature = (frame, fcs=None))]
    fn push(&mut self, frame: Vec<u8>, fcs: Option<Vec<u8>>) -> PyResult<u64> {
        let fcs: Option<[u8; 4]> = match fcs {
            None => None,
            Some(f) => Some(
                f.as_slice()
                    .try_into()
                    .map_err(|_| value_err(format!("an FCS is 4 octets, not {}", f.len())))?,
            ),
        };
        guard(|| {
            self.sim
                .send(&frame, fcs)
                .map_err(|e| value_err(e.to_string()))
        })
    }

    /// The next block (one clock): `(header, payload, events)`; `events` is `None` or a list
    /// of `(kind, id, lane)`: kind 0 = the frame's `/S/` is in this block (lane: its lane),
    /// 1 = its SFD (its first copy under replication), 3 = the first octet after the SFD
    /// (the DA's first; under replication its first copy, after the SFD column's copies),
    /// 2 = its `/T/` (the frame is sent; lane: the `/T/`'s).
    fn next(&mut self) -> PyResult<(u8, u64, Events)> {
        guard(|| {
            let mut ev: Events = None;
            let unit = loop {
                let c = self.clock()?;
                if let Some(e) = events(&c) {
                    ev.get_or_insert_with(Vec::new).extend(e);
                }
                let b = if self.scrambled {
                    c.line
                } else {
                    c.unscrambled
                };
                let Some((channel, queue)) = self.faults.as_mut() else {
                    break unit_of(b);
                };
                channel.push(b);
                queue.bytes.extend(channel.take_bytes());
                // A dropped block (or deleted bits) leaves fewer than 66: the next block
                // comes in the same clock.
                if let Some(u) = queue.take66() {
                    break u;
                }
            };
            let (h, p) = self.out(unit);
            Ok((h, p, ev))
        })
    }

    /// The next XGMII transfer (one clock of a 64-bit XGMII): `(data, ctrl, events)`, lane 0
    /// in the low octet and bit; events as [`TxModel::next`].
    fn xgmii(&mut self) -> PyResult<(u64, u8, Events)> {
        if self.fec != Fec::None {
            return Err(value_err(format!(
                "xgmii(): this TxModel hands out a FEC's line (fec={}): next()",
                self.fec
            )));
        }
        guard(|| {
            let c = self.clock()?;
            Ok((c.word.data, c.word.ctrl, events(&c)))
        })
    }

    /// Drops the frames the MAC has not taken yet; returns their ids.
    fn drop_unstarted(&mut self) -> Vec<u64> {
        self.sim.drop_unstarted()
    }

    /// Blocks sent so far.
    #[getter]
    fn blocks(&self) -> u64 {
        self.sim.blocks()
    }

    /// Frames given and not yet fully sent.
    #[getter]
    fn pending(&self) -> usize {
        self.sim.pending()
    }

    /// The scrambler state after the last block sent (58 bits, bit 57 the newest line bit):
    /// the seed of a model that carries the line on.
    #[getter]
    fn scrambler_state(&self) -> u64 {
        self.sim.scrambler_state()
    }

    /// Frames given that the MAC has not taken yet.
    #[getter]
    fn unstarted(&self) -> usize {
        self.sim.unstarted()
    }

    /// The line rate (`"10g"`, `"25g"`).
    #[getter]
    fn rate(&self) -> &'static str {
        self.rate.name()
    }

    /// What the FEC below the PCS did so far, as a dict (`kind`, `codewords`: FEC blocks or
    /// codewords made, `blocks`: PCS blocks taken, `held`: block times the PCS source was held
    /// for the RS-FEC markers), or `None` without a FEC.
    #[getter]
    fn fec(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(f) = self.sim.fec() else {
            return Ok(None);
        };
        let d = pyo3::types::PyDict::new(py);
        d.set_item("kind", self.fec.name())?;
        d.set_item("codewords", f.codewords())?;
        d.set_item("blocks", f.blocks())?;
        d.set_item("held", f.held())?;
        Ok(Some(d.into_any().unbind()))
    }

    /// Bits the stream is moved by (0..65): a serdes whose boundary slipped.
    #[getter]
    fn get_bit_offset(&self) -> u32 {
        self.bit_offset
    }

    #[setter]
    fn set_bit_offset(&mut self, v: i64) {
        self.bit_offset = v.rem_euclid(66) as u32;
    }
}
