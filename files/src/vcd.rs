//! `.vcd` waveforms for GTKWave: XGMII `txd[63:0]`/`txc[7:0]` and the 66-bit block as
//! `hdr[1:0]`/`data[63:0]`, with a 156.25 MHz clock (6.4 ns period; timescale 100 ps).
//! Signals change on the rising edge; the value shown in cycle i is line i of the matching
//! `.xgmii`/`.b66` files.

use pcs_core::{Block, XgmiiWord};
use std::io::Write;
use vcd::{IdCode, TimescaleUnit, Value};

/// Clock period in timescale units (100 ps).
const PERIOD: u64 = 64;

/// Writes one cycle per XGMII transfer and block.
pub struct VcdWriter<W: Write> {
    inner: vcd::Writer<W>,
    clk: IdCode,
    txd: IdCode,
    txc: IdCode,
    hdr: IdCode,
    data: IdCode,
    cycle: u64,
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
        let mut w = vcd::Writer::new(inner);
        w.comment("baser: XGMII transfers and 66-bit blocks, one per 156.25 MHz cycle")?;
        w.timescale(100, TimescaleUnit::PS)?;
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
        })
    }

    /// Writes one cycle.
    ///
    /// # Errors
    /// The writer failed.
    pub fn write(&mut self, word: XgmiiWord, block: Block) -> std::io::Result<()> {
        let t = self.cycle * PERIOD;
        let w = &mut self.inner;
        w.timestamp(t)?;
        w.change_scalar(self.clk, Value::V1)?;
        w.change_vector(self.txd, bits(word.data, 64))?;
        w.change_vector(self.txc, bits(word.ctrl as u64, 8))?;
        w.change_vector(self.hdr, bits(block.sync.to_bits() as u64, 2))?;
        w.change_vector(self.data, bits(block.payload, 64))?;
        w.timestamp(t + PERIOD / 2)?;
        w.change_scalar(self.clk, Value::V0)?;
        self.cycle += 1;
        Ok(())
    }

    /// Closes the last cycle and flushes.
    ///
    /// # Errors
    /// The writer failed.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.inner.timestamp(self.cycle * PERIOD)?;
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
}
