//! Clause 108 RS-FEC throughput, in line bits (criterion's "elements" are line bits, so
//! `Gelem/s` reads as Gb/s of line rate; 25GBASE-R runs at 25.78125 Gb/s):
//!
//! - `encode`: the parity of one codeword (sliced remainder), message already in place;
//! - `transmitter`: 80 blocks -> transcode -> parity, through `Transmitter::push_slice`;
//! - `check clean`: `decode` of an error-free codeword (the remainder only);
//! - `receiver clean`: `Receiver::push_words` on a locked stream of error-free codewords
//!   (copy, check, untranscode, counters);
//! - `decode 7 errors`: one codeword with 7 random symbol errors, corrected (time per
//!   codeword is the figure to read).
//!
//! Wall time: on a shared machine, read the lower bound of the interval (or run alone).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fec_core::rs::{
    decode, encode_in_place, Codeword, CorrectionMode, LineWords, Receiver, RsFecConfig,
    Transmitter, CODEWORD_BITS, K, N,
};
use pcs_core::Scrambler;
use pcs_core::{Block, SyncHeader};
use std::hint::black_box;

/// A small xorshift generator (no dependency).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn random_codeword(rng: &mut Rng) -> Codeword {
    let mut s = [0u16; N];
    for x in s.iter_mut().take(K) {
        *x = (rng.next() & 0x3ff) as u16;
    }
    let mut cw = Codeword::from_symbols(&s);
    encode_in_place(&mut cw);
    cw
}

fn blocks(n: usize, rng: &mut Rng) -> Vec<Block> {
    let mut s = Scrambler::default();
    (0..n)
        .map(|_| {
            let x = rng.next();
            if x % 5 == 0 {
                Block {
                    sync: SyncHeader::CONTROL,
                    payload: s.scramble(x & !0xff | 0x1e),
                }
            } else {
                Block {
                    sync: SyncHeader::DATA,
                    payload: s.scramble(x),
                }
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut g = c.benchmark_group("rs");
    g.throughput(Throughput::Elements(CODEWORD_BITS as u64));

    let mut cw = random_codeword(&mut rng);
    g.bench_function("encode", |b| {
        b.iter(|| {
            encode_in_place(black_box(&mut cw));
        })
    });

    let stream = blocks(80 * 64, &mut rng);
    let config = RsFecConfig::IEEE;
    let mut tx = Transmitter::new(&config).unwrap();
    g.throughput(Throughput::Elements(64 * CODEWORD_BITS as u64));
    g.bench_function("transmitter", |b| {
        b.iter(|| {
            let mut n = 0u64;
            tx.push_slice(black_box(&stream[..]), |cw| n += cw.words()[0] & 1);
            n
        })
    });

    g.throughput(Throughput::Elements(CODEWORD_BITS as u64));
    let clean = random_codeword(&mut rng);
    g.bench_function("check clean", |b| {
        b.iter(|| {
            let mut c = black_box(clean.clone());
            decode(&mut c, CorrectionMode::Correct)
        })
    });

    // A locked receiver fed whole marker periods of error-free codewords (period 16).
    let config = RsFecConfig::VIP;
    let mut tx = Transmitter::new(&config).unwrap();
    let mut words = Vec::new();
    let mut packer = LineWords::new();
    let period_blocks = blocks(76 + 15 * 80, &mut rng);
    for _ in 0..4 {
        tx.push_slice(&period_blocks, |cw| packer.push(cw, |w| words.push(w)));
    }
    let mut rx = Receiver::new(&config).unwrap();
    rx.push_words(&words, |_| {});
    assert!(rx.is_locked());
    g.throughput(Throughput::Elements(words.len() as u64 * 64));
    g.bench_function("receiver clean", |b| {
        b.iter(|| {
            let mut n = 0usize;
            rx.push_words(black_box(&words), |_| n += 1);
            n
        })
    });

    g.throughput(Throughput::Elements(CODEWORD_BITS as u64));
    let errored: Vec<Codeword> = (0..64)
        .map(|_| {
            let mut cw = random_codeword(&mut rng);
            let mut used = Vec::new();
            while used.len() < 7 {
                let p = (rng.next() % N as u64) as usize;
                if !used.contains(&p) {
                    used.push(p);
                    cw.xor_symbol(p, 1 + (rng.next() % 1023) as u16);
                }
            }
            cw
        })
        .collect();
    let mut k = 0;
    g.bench_function("decode 7 errors", |b| {
        b.iter(|| {
            k = (k + 1) % errored.len();
            let mut c = errored[k].clone();
            decode(black_box(&mut c), CorrectionMode::Correct)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
