//! `.vcd` waveforms for GTKWave: XGMII `txd[63:0]`/`txc[7:0]` and the 66-bit block as
//! `hdr[1:0]`/`data[63:0]`, with a clock of one block time: 6.4 ns at 10GBASE-R (156.25 MHz,
//! timescale 100 ps), 2.56 ns at 25GBASE-R (390.625 MHz, timescale 10 ps).
//! Signals change on the rising edge; the value shown in cycle i is line i of the matching
//! `.xgmii`/`.b66` files.

use pcs_core::{Block, XgmiiWord};
use std::io::Write;
use vcd::{IdCode, TimescaleUnit, Value};

/// The 10GBASE-R block time, ps (a 156.25 MHz clock).
const BLOCK_PS_10G: u64 = 6_400;

/// Writes one cycle per XGMII transfer and block.
pub struct VcdWriter<W: Write> {
    inner: vcd::Writer<W>,
    clk: IdCode,
    txd: IdCode,
    txc: IdCode,
    hdr: IdCode,
    data: IdCode,
    cycle: u64,
    /// Clock period in timescale units.
    period: u64,
}

fn bits(value: u64, width: u32) -> impl Iterator<Item = Value> {
    (0..width).rev().map(move |i| {
        if value >> i & 1 == 1 {
            Value::V1
        } else {
            Value::V0
        }
    })
}

impl<W: Write> VcdWriter<W> {
    /// Writes the header: module `baser` with `clk`, `txd`, `txc`, `hdr`, `data`.
    ///
    /// # Errors
    /// The writer failed.
    pub fn new(inner: W) -> std::io::Result<Self> {
        Self::with_block_ps(inner, BLOCK_PS_10G)
    }

    /// [`VcdWriter::new`] with a clock of `block_ps` (the rate's block time: 6400 ps at 10G,
    /// 2560 at 25G); the timescale is 100 ps when that divides it, else 10 ps, else 1 ps.
    ///
    /// # Errors
    /// The writer failed.
    pub fn with_block_ps(inner: W, block_ps: u64) -> std::io::Result<Self> {
        let block_ps = block_ps.max(2);
        let scale = [100, 10]
            .into_iter()
            .find(|s| block_ps.is_multiple_of(2 * s))
            .unwrap_or(1);
        let mut w = vcd::Writer::new(inner);
        w.comment(&format!(
            "baser: XGMII transfers and 66-bit blocks, one per {} MHz cycle",
            1_000_000.0 / block_ps as f64
        ))?;
        w.timescale(scale as u32, TimescaleUnit::PS)?;
        w.add_module("baser")?;
        let clk = w.add_wire(1, "clk")?;
        let txd = w.add_wire(64, "txd")?;
        let txc = w.add_wire(8, "txc")?;
        let hdr = w.add_wire(2, "hdr")?;
        let data = w.add_wire(64, "data")?;
        w.upscope()?;
        w.enddefinitions()?;
        Ok(Self {
            inner: w,
            clk,
            txd,
            txc,
            hdr,
            data,
            cycle: 0,
            period: block_ps / scale,
        })
    }

    /// Writes one cycle.
    ///
    /// # Errors
    /// The writer failed.
    pub fn write(&mut self, word: XgmiiWord, block: Block) -> std::io::Result<()> {
        let t = self.cycle * self.period;
        let w = &mut self.inner;
        w.timestamp(t)?;
        w.change_scalar(self.clk, Value::V1)?;
        w.change_vector(self.txd, bits(word.data, 64))?;
        w.change_vector(self.txc, bits(word.ctrl as u64, 8))?;
        w.change_vector(self.hdr, bits(block.sync.to_bits() as u64, 2))?;
        w.change_vector(self.data, bits(block.payload, 64))?;
        w.timestamp(t + self.period / 2)?;
        w.change_scalar(self.clk, Value::V0)?;
        self.cycle += 1;
        Ok(())
    }

    /// Closes the last cycle and flushes.
    ///
    /// # Errors
    /// The writer failed.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.inner.timestamp(self.cycle * self.period)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vcd_declares_the_signals_and_one_change_set_per_cycle() {
        let mut out = Vec::new();
        let mut w = VcdWriter::new(&mut out).unwrap();
        w.write(XgmiiWord::IDLE, Block::IDLE).unwrap();
        w.write(XgmiiWord::from_data(5), Block::data(5)).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        for decl in [
            "$var wire 1 ! clk $end",
            "$var wire 64 \" txd $end",
            "$var wire 8 # txc $end",
            "$var wire 2 $ hdr $end",
            "$var wire 64 % data $end",
            "$timescale 100 ps $end",
        ] {
            assert!(text.contains(decl), "{decl}\n{text}");
        }
        assert!(text.contains("#0\n"), "{text}");
        assert!(text.contains("#64\n"), "{text}");
        assert!(text.contains("#128\n"), "{text}");
        // Cycle 0: hdr = 1 (control), txc = ff. Cycle 1: hdr = 2 (data), data = 5.
        assert!(text.contains("b01 $\n"), "{text}");
        assert!(text.contains("b11111111 #\n"), "{text}");
        assert!(text.contains("b10 $\n"), "{text}");
        assert!(text.contains(&format!("b{:064b} %\n", 5)), "{text}");
        assert!(
            text.contains(&format!("b{:064b} ", 0x0707_0707_0707_0707u64)),
            "{text}"
        );
    }

    #[test]
    fn a_25g_vcd_has_the_2_56_ns_clock_of_its_blocks() {
        let mut out = Vec::new();
        let mut w = VcdWriter::with_block_ps(&mut out, 2_560).unwrap();
        w.write(XgmiiWord::IDLE, Block::IDLE).unwrap();
        w.write(XgmiiWord::IDLE, Block::IDLE).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("390.625 MHz"), "{text}");
        assert!(text.contains("$timescale 10 ps $end"), "{text}");
        for t in ["#0\n", "#128\n", "#256\n", "#512\n"] {
            assert!(text.contains(t), "{t}\n{text}");
        }
    }
}
