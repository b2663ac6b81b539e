//! Clause 74 BASE-R FEC: encode and error-free decode throughput, in line bits.
//!
//! Criterion reports bytes per second of line bits (one FEC block is 2112 bits = 264 bytes);
//! multiply GB/s (decimal) by 8 for Gb/s. The 25G chain with FEC needs 25.78 Gb/s on one core.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fec_core::base_r::{
    decode, encode, pack_rows, parity, unpack_rows, DecodeOptions, FecRx, FecRxBlock, FecRxConfig,
    FecTx,
};
use pcs_core::Block;
use std::hint::black_box;

/// Scrambled-looking blocks: data and control headers, pseudo-random payloads.
fn blocks(n: usize) -> Vec<Block> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x & 7 == 0 {
                Block::control(x)
            } else {
                Block::data(x)
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    const FEC_BLOCKS: usize = 256;
    let bs = blocks(32 * FEC_BLOCKS);
    let mut g = c.benchmark_group("base_r");

    // One FEC block at a time, and its pieces.
    g.throughput(Throughput::BytesDecimal(264));
    let one: [Block; 32] = bs[..32].try_into().unwrap();
    let line_one = encode(&one);
    g.bench_function("encode_one", |b| b.iter(|| encode(black_box(&one))));
    g.bench_function("decode_one_clean", |b| {
        b.iter(|| decode(black_box(&line_one), DecodeOptions::default()))
    });
    let mut burst = line_one;
    burst[5] ^= 0b111 << 7;
    g.bench_function("decode_one_burst", |b| {
        b.iter(|| decode(black_box(&burst), DecodeOptions::default()))
    });
    g.bench_function("pack_rows_one", |b| b.iter(|| pack_rows(black_box(&one))));
    g.bench_function("parity_one", |b| b.iter(|| parity(black_box(&line_one))));
    g.bench_function("unpack_rows_one", |b| {
        b.iter(|| unpack_rows(black_box(&line_one)))
    });

    // The streaming doors over 256 FEC blocks.
    g.throughput(Throughput::BytesDecimal((FEC_BLOCKS * 264) as u64));
    let mut tx = FecTx::new();
    let mut line = vec![0u64; 33 * FEC_BLOCKS];
    g.bench_function("fec_tx_push_blocks", |b| {
        b.iter(|| tx.push_blocks(black_box(&bs), &mut line))
    });
    let mut tx = FecTx::new();
    let p = tx.push_blocks(&bs, &mut line);
    assert_eq!(p.produced, line.len());

    let mut out = vec![FecRxBlock::EMPTY; FEC_BLOCKS];
    let mut rx = FecRx::new_locked(FecRxConfig::default());
    g.bench_function("fec_rx_push_words_clean", |b| {
        b.iter(|| rx.push_words(black_box(&line), &mut out))
    });
    // Words off the 64-bit phase: the same stream rotated by 13 bits (repeating it keeps the
    // boundary), the receiver locked from hunting.
    let n = line.len();
    let shifted: Vec<u64> = (0..n)
        .map(|k| line[k] << 13 | line[(k + n - 1) % n] >> 51)
        .collect();
    let mut rx = FecRx::default();
    for _ in 0..4 {
        rx.push_words(&shifted, &mut out);
    }
    assert!(rx.fec_block_lock());
    g.bench_function("fec_rx_push_words_clean_offset", |b| {
        b.iter(|| rx.push_words(black_box(&shifted), &mut out))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
