//! A fault channel between the model's transmitter and receiver: it takes line blocks and
//! puts bits on the "wire" with chosen faults, and predicts what the standard says each fault
//! must do.
//!
//! Faults (the `--inject` syntax of `baser encode` / `baser decode` in brackets):
//! - a single bit flip at a line bit position (`flip:BIT`);
//! - a burst of flipped bits (`burst:BIT:LEN`);
//! - random independent bit errors at a rate, from a seed (`ber:RATE[:SEED]`);
//! - an invalid sync header on a block (`header:BLOCK`, header `00`);
//! - bit slips: bits inserted (zeros) or deleted at a position (`slip:BIT:+N` / `slip:BIT:-N`);
//! - a dropped or duplicated block (`drop:BLOCK`, `dup:BLOCK`).
//!
//! Line bit positions count from the first bit of the first block the channel sees: block b
//! holds bits `66b..66b+65`, `66b` and `66b+1` its sync header, `66b+2+j` payload bit j.
//!
//! Predictions (§49.2.6, §49.2.10, §49.2.9, §49.2.13): a flipped payload bit at payload stream
//! position q (`64b + j`) gives descrambled errors at q, q+39 and q+58 exactly; a single
//! flipped header bit makes the header invalid (counted, the block becomes an E block).

use pcs_core::Block;
use std::collections::BTreeSet;

/// One fault.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// Flip the line bit at this position.
    Flip(u64),
    /// Flip `len` consecutive line bits from this position.
    Burst(u64, u32),
    /// Flip each line bit with probability `rate`, from a seeded generator.
    Ber(f64, u64),
    /// Set the sync header of this block to `00`.
    Header(u64),
    /// At this line bit position, insert `n > 0` zero bits or delete `-n` bits.
    Slip(u64, i32),
    /// Drop this block.
    Drop(u64),
    /// Send this block twice.
    Duplicate(u64),
    /// Corrupt `n` distinct 10-bit symbols of this RS-FEC codeword (0 = the first codeword
    /// on the line), spread over it: bit 0 of symbols `k * (528 / n)`, `k < n` (a FEC line only).
    Symbols(u64, u32),
}

impl Fault {
    /// Parses the `--inject` syntax.
    ///
    /// # Errors
    /// A message saying what was expected.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let parts: Vec<&str> = spec.split(':').collect();
        let num = |s: &str| -> Result<u64, String> {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{s}` in `{spec}` is not a non-negative integer"))
        };
        let form = "expected flip:BIT, burst:BIT:LEN, ber:RATE[:SEED], header:BLOCK, slip:BIT:+N|-N, drop:BLOCK, dup:BLOCK or symbols:CODEWORD:N";
        match parts.as_slice() {
            ["flip", b] => Ok(Self::Flip(num(b)?)),
            ["burst", b, n] => Ok(Self::Burst(num(b)?, num(n)?.min(u32::MAX as u64) as u32)),
            ["ber", r] | ["ber", r, _] => {
                let rate: f64 = r
                    .parse()
                    .map_err(|_| format!("`{r}` in `{spec}` is not a rate like 1e-6"))?;
                if !(0.0..=0.5).contains(&rate) {
                    return Err(format!("rate {rate} in `{spec}` is outside 0..0.5"));
                }
                let seed = match parts.get(2) {
                    Some(s) => num(s)?,
                    None => 1,
                };
                Ok(Self::Ber(rate, seed))
            }
            ["header", b] => Ok(Self::Header(num(b)?)),
            ["slip", b, n] => {
                let n: i32 = n
                    .trim_start_matches('+')
                    .parse()
                    .map_err(|_| format!("`{n}` in `{spec}` is not +N or -N"))?;
                if n == 0 || n.abs() > 65 {
                    return Err(format!("slip of {n} bits in `{spec}`: expected 1..=65 bits, + to insert, - to delete"));
                }
                Ok(Self::Slip(num(b)?, n))
            }
            ["drop", b] => Ok(Self::Drop(num(b)?)),
            ["dup", b] => Ok(Self::Duplicate(num(b)?)),
            ["symbols", c, n] => {
                let n = num(n)?;
                if !(1..=528).contains(&n) {
                    return Err(format!(
                        "{n} symbols in `{spec}`: a codeword has 528 symbols (1..=528)"
                    ));
                }
                Ok(Self::Symbols(num(c)?, n as u32))
            }
            _ => Err(format!("`{spec}`: {form}")),
        }
    }

    /// True for faults that move the block boundary (a `.b66` output cannot hold them).
    pub fn moves_boundary(&self) -> bool {
        matches!(self, Self::Slip(..))
    }

    /// The line bits a `symbols:CODEWORD:N` fault flips (bit 0 of each symbol, 10-bit symbols
    /// LSB first, 5280 bits a codeword from the first line bit).
    pub fn symbol_bits(codeword: u64, n: u32) -> impl Iterator<Item = u64> {
        let step = 528 / u64::from(n.clamp(1, 528));
        (0..u64::from(n)).map(move |k| codeword * 5280 + 10 * k * step)
    }
}

/// Puts bit faults on a line after the FEC (the `.bits` bytes, bit 0 of byte 0 first):
/// `flip`, `burst`, `ber` and `symbols`; returns the flipped bit positions, in order. A block
/// fault (`header`, `drop`, `dup`, `slip`) has no block to act on below the FEC and is refused.
///
/// # Errors
/// A fault that is not a bit fault, with what to do instead.
pub fn corrupt_line(bytes: &mut [u8], faults: &[Fault]) -> Result<Vec<u64>, String> {
    let mut flips = BTreeSet::new();
    let bits = bytes.len() as u64 * 8;
    for f in faults {
        match *f {
            Fault::Flip(b) => {
                flips.insert(b);
            }
            Fault::Burst(b, n) => flips.extend(b..b.saturating_add(u64::from(n))),
            Fault::Symbols(c, n) => flips.extend(Fault::symbol_bits(c, n)),
            Fault::Ber(r, s) => {
                let mut src = BerSource::new(r, s);
                while src.next < bits {
                    flips.insert(src.next);
                    src.next = src.next.saturating_add(1).saturating_add(src.gap());
                }
            }
            Fault::Header(_) | Fault::Slip(..) | Fault::Drop(_) | Fault::Duplicate(_) => {
                return Err(format!(
                    "{f:?}: a block fault has no block to act on below the FEC; on a FEC line use flip:, burst:, ber: or symbols:"
                ))
            }
        }
    }
    let flipped: Vec<u64> = flips.into_iter().filter(|&b| b < bits).collect();
    for &b in &flipped {
        if let Some(o) = bytes.get_mut((b / 8) as usize) {
            *o ^= 1 << (b % 8);
        }
    }
    Ok(flipped)
}

/// A small seeded generator (SplitMix64): reproducible error patterns and stimulus
/// (`gen.rs`) without a dependency, so no crate update changes a stream.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1].
    fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True `percent` times in 100.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// Random bit errors at a rate: the gaps between errors are geometric.
#[derive(Clone, Debug)]
struct BerSource {
    rng: SplitMix,
    ln_keep: f64,
    next: u64,
}

impl BerSource {
    fn new(rate: f64, seed: u64) -> Self {
        let mut s = Self {
            rng: SplitMix(seed),
            ln_keep: (1.0 - rate).ln(),
            next: u64::MAX,
        };
        s.next = if rate > 0.0 { s.gap() } else { u64::MAX };
        s
    }

    fn gap(&mut self) -> u64 {
        let g = (self.rng.unit().ln() / self.ln_keep).floor();
        if g.is_finite() && g < 1e18 {
            g as u64
        } else {
            u64::MAX / 2
        }
    }
}

/// The channel: line blocks in, line bits out, with the faults applied.
#[derive(Clone, Debug)]
pub struct FaultChannel {
    flips: BTreeSet<u64>,
    headers: BTreeSet<u64>,
    slips: Vec<(u64, i32)>,
    drops: BTreeSet<u64>,
    dups: BTreeSet<u64>,
    ber: Vec<BerSource>,
    block: u64,
    /// Every line bit flipped (original positions), for predictions and reports.
    pub flipped: Vec<u64>,
    out: Vec<u8>,
    acc: u128,
    acc_bits: u32,
}

impl FaultChannel {
    /// A channel with these faults.
    pub fn new(faults: &[Fault]) -> Self {
        let mut c = Self::empty();
        for f in faults {
            c.add_at(f, 0);
        }
        c
    }

    /// Adds a fault whose positions count from the next block the channel takes (block 0 =
    /// that block, bit 0 = its first bit): a fault injected while a stream runs.
    pub fn add(&mut self, f: &Fault) {
        self.add_at(f, self.block);
    }

    fn empty() -> Self {
        Self {
            flips: BTreeSet::new(),
            headers: BTreeSet::new(),
            slips: Vec::new(),
            drops: BTreeSet::new(),
            dups: BTreeSet::new(),
            ber: Vec::new(),
            block: 0,
            flipped: Vec::new(),
            out: Vec::new(),
            acc: 0,
            acc_bits: 0,
        }
    }

    /// Adds `f` with its positions moved on by `blocks` blocks.
    fn add_at(&mut self, f: &Fault, blocks: u64) {
        let bit = blocks.saturating_mul(66);
        match *f {
            Fault::Flip(b) => {
                self.flips.insert(b.saturating_add(bit));
            }
            Fault::Burst(b, n) => {
                let b = b.saturating_add(bit);
                self.flips.extend(b..b.saturating_add(u64::from(n)));
            }
            Fault::Ber(r, s) => {
                let mut src = BerSource::new(r, s);
                src.next = src.next.saturating_add(bit);
                self.ber.push(src);
            }
            Fault::Header(b) => {
                self.headers.insert(b.saturating_add(blocks));
            }
            Fault::Slip(b, n) => {
                self.slips.push((b.saturating_add(bit), n));
                self.slips.sort_unstable();
            }
            Fault::Drop(b) => {
                self.drops.insert(b.saturating_add(blocks));
            }
            Fault::Duplicate(b) => {
                self.dups.insert(b.saturating_add(blocks));
            }
            // Symbols of a codeword: only on a FEC line (`corrupt_line`); on a line without
            // FEC, the same bits counted from the first line bit.
            Fault::Symbols(c, n) => {
                self.flips
                    .extend(Fault::symbol_bits(c, n).map(|p| p.saturating_add(bit)));
            }
        }
    }

    /// Blocks seen so far.
    pub fn blocks(&self) -> u64 {
        self.block
    }

    /// Puts one line block through the channel; the bits are kept until taken.
    pub fn push(&mut self, block: Block) {
        let b = self.block;
        self.block += 1;
        let mut bits: u128 = block.sync.to_bits() as u128 | (block.payload as u128) << 2;
        if self.headers.contains(&b) {
            bits &= !0b11;
        }
        let base = b * 66;
        // Single flips and bursts.
        for &p in self.flips.range(base..base + 66) {
            bits ^= 1 << (p - base);
            self.flipped.push(p);
        }
        // Random errors.
        for src in &mut self.ber {
            while src.next < base + 66 {
                let p = src.next.max(base);
                bits ^= 1 << (p - base);
                self.flipped.push(p);
                src.next = p.saturating_add(1).saturating_add(src.gap());
            }
        }
        if self.drops.contains(&b) {
            return;
        }
        let copies = if self.dups.contains(&b) { 2 } else { 1 };
        for _ in 0..copies {
            self.put_block_bits(bits, base);
        }
    }

    /// Emits the 66 bits of block at line position `base`, applying slips inside it.
    fn put_block_bits(&mut self, bits: u128, base: u64) {
        let slips: Vec<(u64, i32)> = self
            .slips
            .iter()
            .copied()
            .filter(|&(p, _)| p >= base && p < base + 66)
            .collect();
        if slips.is_empty() {
            self.put_bits(bits, 66);
            return;
        }
        let mut from = 0u32;
        for (p, n) in slips {
            let at = (p - base) as u32;
            if at < from {
                continue;
            }
            if at > from {
                self.put_bits(bits >> from, at - from);
            }
            from = at;
            if n > 0 {
                self.put_bits(0, n as u32);
            } else {
                // A deletion ends at the block's end.
                from = (at + n.unsigned_abs()).min(66);
            }
        }
        if from < 66 {
            self.put_bits(bits >> from, 66 - from);
        }
    }

    fn put_bits(&mut self, bits: u128, n: u32) {
        let mut bits = bits & ((1u128 << n) - 1);
        let mut n = n;
        while n > 0 {
            let take = n.min(64);
            self.acc |= (bits & ((1u128 << take) - 1)) << self.acc_bits;
            self.acc_bits += take;
            bits >>= take;
            n -= take;
            while self.acc_bits >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.acc_bits -= 8;
            }
        }
    }

    /// Takes the complete bytes produced so far.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// Ends the stream: the partial last byte, zero padded.
    pub fn finish(&mut self) -> Vec<u8> {
        if self.acc_bits > 0 {
            self.out.push(self.acc as u8);
            self.acc = 0;
            self.acc_bits = 0;
        }
        self.take_bytes()
    }
}

/// What the flips must do, by the standard.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prediction {
    /// Blocks whose sync header got an odd number of flips: invalid headers.
    pub invalid_headers: BTreeSet<u64>,
    /// Blocks whose header got two flips: a valid header of the other kind.
    pub swapped_headers: BTreeSet<u64>,
    /// Descrambled payload bit errors, as payload stream positions (`64 * block + bit`).
    pub payload_errors: BTreeSet<u64>,
}

impl Prediction {
    /// Blocks whose descrambled content (header or payload) must differ from what was sent.
    pub fn touched_blocks(&self) -> BTreeSet<u64> {
        let mut t: BTreeSet<u64> = self.payload_errors.iter().map(|q| q / 64).collect();
        t.extend(&self.invalid_headers);
        t.extend(&self.swapped_headers);
        t
    }
}

/// Predicts the consequences of bit flips at line positions (no slips, drops or duplicates):
/// a payload flip at payload stream position q corrupts exactly q, q+39 and q+58 after the
/// descrambler (an even number of hits on one position cancels).
///
/// Spec: IEEE 802.3 §49.2.6, §49.2.10.
pub fn predict(flipped: &[u64], header_faults: &[u64]) -> Prediction {
    let mut p = Prediction::default();
    let mut header_flips: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
    for &pos in flipped {
        let (block, i) = (pos / 66, pos % 66);
        if i < 2 {
            *header_flips.entry(block).or_default() += 1;
        } else {
            let q = block * 64 + (i - 2);
            for e in [q, q + 39, q + 58] {
                if !p.payload_errors.insert(e) {
                    p.payload_errors.remove(&e);
                }
            }
        }
    }
    for (b, n) in header_flips {
        if header_faults.contains(&b) {
            continue;
        }
        if n % 2 == 1 {
            p.invalid_headers.insert(b);
        } else {
            p.swapped_headers.insert(b);
        }
    }
    p.invalid_headers.extend(header_faults);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_faults_flip_bit_0_of_spread_symbols_and_block_faults_are_refused_below_the_fec() {
        assert_eq!(
            Fault::parse("symbols:2:4"),
            Ok(Fault::Symbols(2, 4)),
            "symbols:CODEWORD:N"
        );
        assert!(Fault::parse("symbols:0:529").is_err());
        let bits: Vec<u64> = Fault::symbol_bits(1, 4).collect();
        assert_eq!(bits, [5280, 5280 + 1320, 5280 + 2640, 5280 + 3960]);
        let mut line = vec![0u8; 2 * 660];
        let flipped = corrupt_line(
            &mut line,
            &[Fault::Symbols(1, 4), Fault::Burst(3, 4), Fault::Flip(5)],
        )
        .unwrap();
        assert_eq!(flipped, [3, 4, 5, 6, 5280, 6600, 7920, 9240]);
        assert_eq!(line[0], 0b0111_1000);
        assert_eq!(line[660], 1);
        let err = corrupt_line(&mut line, &[Fault::Header(3)]).unwrap_err();
        assert!(err.contains("below the FEC"), "{err}");
        // Faults past the end flip nothing.
        assert!(corrupt_line(&mut line, &[Fault::Flip(99_999)])
            .unwrap()
            .is_empty());
    }

    #[test]
    fn parse_accepts_every_fault_and_explains_errors() {
        assert_eq!(Fault::parse("flip:100"), Ok(Fault::Flip(100)));
        assert_eq!(Fault::parse("burst:5:3"), Ok(Fault::Burst(5, 3)));
        assert_eq!(Fault::parse("ber:1e-6:9"), Ok(Fault::Ber(1e-6, 9)));
        assert_eq!(Fault::parse("header:7"), Ok(Fault::Header(7)));
        assert_eq!(Fault::parse("slip:70:+1"), Ok(Fault::Slip(70, 1)));
        assert_eq!(Fault::parse("slip:70:-2"), Ok(Fault::Slip(70, -2)));
        assert_eq!(Fault::parse("drop:3"), Ok(Fault::Drop(3)));
        assert_eq!(Fault::parse("dup:3"), Ok(Fault::Duplicate(3)));
        assert!(Fault::parse("flip:x")
            .unwrap_err()
            .contains("not a non-negative integer"));
        assert!(Fault::parse("zap:1")
            .unwrap_err()
            .contains("expected flip:BIT"));
        assert!(Fault::parse("slip:1:0").unwrap_err().contains("1..=65"));
    }

    fn bits_of(bytes: &[u8]) -> Vec<u8> {
        bytes
            .iter()
            .flat_map(|b| (0..8).map(move |i| b >> i & 1))
            .collect()
    }

    #[test]
    fn a_fault_added_while_running_counts_from_the_next_block() {
        // The same faults, given at the start with absolute positions and added after 5
        // blocks with positions from there, give the same stream.
        let blocks: Vec<Block> = (0..12u64).map(|i| Block::data(i * 0x0101_0101)).collect();
        let later = [
            Fault::Flip(70),
            Fault::Burst(3, 4),
            Fault::Header(2),
            Fault::Slip(140, 2),
            Fault::Drop(4),
            Fault::Duplicate(5),
            Fault::Ber(0.01, 3),
        ];
        let absolute: Vec<Fault> = later
            .iter()
            .map(|f| match *f {
                Fault::Flip(b) => Fault::Flip(b + 5 * 66),
                Fault::Burst(b, n) => Fault::Burst(b + 5 * 66, n),
                Fault::Header(b) => Fault::Header(b + 5),
                Fault::Slip(b, n) => Fault::Slip(b + 5 * 66, n),
                Fault::Drop(b) => Fault::Drop(b + 5),
                Fault::Duplicate(b) => Fault::Duplicate(b + 5),
                // (Not shiftable by hand; compared below.)
                Fault::Ber(..) | Fault::Symbols(..) => Fault::Flip(0),
            })
            .collect();
        let mut a = FaultChannel::new(&absolute[..6]);
        let mut b = FaultChannel::new(&[]);
        for (i, &blk) in blocks.iter().enumerate() {
            if i == 5 {
                for f in &later[..6] {
                    b.add(f);
                }
            }
            a.push(blk);
            b.push(blk);
        }
        assert_eq!(a.finish(), b.finish());
        assert_eq!(a.flipped, b.flipped);
        // A BER source added later flips nothing before it and the same pattern after.
        let mut c = FaultChannel::new(&[later[6].clone()]);
        let mut d = FaultChannel::new(&[]);
        for (i, &blk) in blocks.iter().enumerate() {
            if i == 5 {
                d.add(&later[6]);
            }
            c.push(blk);
            d.push(blk);
        }
        assert!(d.flipped.iter().all(|&p| p >= 5 * 66));
        let shifted: Vec<u64> = c.flipped.iter().map(|p| p + 5 * 66).collect();
        assert_eq!(d.flipped, shifted[..d.flipped.len()]);
        assert!(!d.flipped.is_empty());
    }

    #[test]
    fn a_clean_channel_packs_blocks_bit_0_first() {
        let mut c = FaultChannel::new(&[]);
        c.push(Block::IDLE);
        let bits = bits_of(&c.finish());
        // Header 1 = bits 1, 0; payload 0x1e = 0, 1, 1, 1, 1, 0 ...
        assert_eq!(&bits[..8], &[1, 0, 0, 1, 1, 1, 1, 0]);
        assert_eq!(bits.len(), 72);
    }

    #[test]
    fn flips_slips_drops_and_duplicates_edit_the_bit_stream() {
        let blocks = [Block::IDLE, Block::data(u64::MAX), Block::IDLE];
        let clean: Vec<u8> = {
            let mut c = FaultChannel::new(&[]);
            blocks.iter().for_each(|&b| c.push(b));
            bits_of(&c.finish())[..198].to_vec()
        };
        let run = |faults: &[Fault]| {
            let mut c = FaultChannel::new(faults);
            blocks.iter().for_each(|&b| c.push(b));
            let n = c.flipped.len();
            (bits_of(&c.finish()), n)
        };
        let (b, n) = run(&[Fault::Flip(70)]);
        assert_eq!(n, 1);
        assert_eq!(b[70], 1 - clean[70]);
        assert_eq!(b[..70], clean[..70]);
        assert_eq!(b[71..198], clean[71..]);
        let (b, _) = run(&[Fault::Slip(70, 2)]);
        assert_eq!(&b[..70], &clean[..70]);
        assert_eq!(&b[70..72], &[0, 0]);
        assert_eq!(&b[72..200], &clean[70..]);
        let (b, _) = run(&[Fault::Slip(70, -3)]);
        assert_eq!(&b[..70], &clean[..70]);
        assert_eq!(&b[70..195], &clean[73..]);
        let (b, _) = run(&[Fault::Drop(1)]);
        assert_eq!(&b[..132], [&clean[..66], &clean[132..]].concat());
        let (b, _) = run(&[Fault::Duplicate(0)]);
        assert_eq!(
            &b[..264],
            [&clean[..66], &clean[..66], &clean[66..]].concat()
        );
        let (b, _) = run(&[Fault::Header(2)]);
        assert_eq!(&b[132..134], &[0, 0]);
    }

    #[test]
    fn ber_source_hits_the_rate_and_is_reproducible() {
        let count = |seed| {
            let mut c = FaultChannel::new(&[Fault::Ber(1e-3, seed)]);
            for _ in 0..20_000 {
                c.push(Block::IDLE);
            }
            c.flipped.clone()
        };
        let a = count(5);
        assert_eq!(a, count(5));
        assert_ne!(a, count(6));
        // 1.32 M bits at 1e-3: 1320 expected; 5 sigma is about 180.
        assert!((1140..1500).contains(&a.len()), "{}", a.len());
        assert!(a.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn prediction_of_one_payload_flip_is_three_bits_39_and_58_apart() {
        let p = predict(&[66 * 3 + 2 + 10], &[]);
        assert_eq!(
            p.payload_errors.into_iter().collect::<Vec<_>>(),
            [3 * 64 + 10, 3 * 64 + 49, 3 * 64 + 68]
        );
        let p = predict(&[66 * 3], &[]);
        assert_eq!(p.invalid_headers.into_iter().collect::<Vec<_>>(), [3]);
        let p = predict(&[66 * 3, 66 * 3 + 1], &[]);
        assert_eq!(p.swapped_headers.into_iter().collect::<Vec<_>>(), [3]);
    }
}
