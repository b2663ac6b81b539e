//! The PCS pieces on whole slices: scrambler, encoder, receive PCS, gearbox, block lock.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pcs_core::Encoder;
use pcs_core::LockAction;
use pcs_core::Scrambler;
use pcs_core::TxGearbox;
use pcs_core::{AlignedBlock, BlockAligner};
use pcs_core::{Block, XgmiiWord};
use pcs_core::{PcsRx, PcsRxConfig, PcsTx, Stops};
use std::hint::black_box;

/// Packet-like traffic: a start, 180 data transfers, a terminate, an idle.
fn words(n: usize) -> Vec<XgmiiWord> {
    let mut w = Vec::with_capacity(n);
    while w.len() < n {
        w.push(XgmiiWord::new(0xd555_5555_5555_55fb, 0x01));
        for k in 0..180u64 {
            w.push(XgmiiWord::from_data(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        }
        w.push(XgmiiWord::new(0x0707_0707_07fd_0102, 0xfc));
        w.push(XgmiiWord::IDLE);
    }
    w.truncate(n);
    w
}

fn bench(c: &mut Criterion) {
    const N: usize = 4096;
    let ws = words(N);
    let mut g = c.benchmark_group("pcs");
    g.throughput(Throughput::Elements(N as u64));
    let mut payloads: Vec<u64> = ws.iter().map(|w| w.data).collect();
    let mut s = Scrambler::default();
    g.bench_function("scramble_slice", |b| {
        b.iter(|| s.scramble_slice(black_box(&mut payloads)))
    });
    let mut blocks = vec![Block::IDLE; N];
    let mut e = Encoder::default();
    g.bench_function("encode_slice", |b| {
        b.iter(|| e.encode_slice(black_box(&ws), &mut blocks))
    });
    let mut tx = PcsTx::new(Default::default(), 1);
    g.bench_function("pcs_tx_encode_slice", |b| {
        b.iter(|| tx.encode_slice(black_box(&ws), &mut blocks))
    });
    let mut tx = PcsTx::new(Default::default(), 1);
    tx.encode_slice(&ws, &mut blocks);
    let mut rx = PcsRx::new(PcsRxConfig::default());
    let mut out = vec![XgmiiWord::IDLE; N];
    g.bench_function("pcs_rx_decode_slice", |b| {
        b.iter(|| rx.decode_slice(black_box(&blocks), true, &mut out, Stops::Never))
    });
    let mut gb = TxGearbox::<u64>::new();
    let mut serdes = vec![0u64; N * 66 / 64 + 2];
    g.bench_function(BenchmarkId::new("tx_gearbox", "u64"), |b| {
        b.iter(|| gb.push_blocks(black_box(&blocks), &mut serdes))
    });
    let mut gb = TxGearbox::<u64>::new();
    let p = gb.push_blocks(&blocks, &mut serdes);
    let line = &serdes[..p.produced];
    let mut aligner = BlockAligner::<u64>::new();
    let mut aligned = vec![
        AlignedBlock {
            block: Block::IDLE,
            bit_offset: 0,
            block_lock: false,
            action: LockAction::Hold
        };
        N
    ];
    g.bench_function("block_aligner_u64", |b| {
        b.iter(|| aligner.push_words(black_box(line), &mut aligned))
    });
    // The locked path: lock first (the stream repeats, so the boundary stays put), then plain
    // blocks cut 32 at a time.
    let mut aligner = BlockAligner::<u64>::new();
    for _ in 0..4 {
        aligner.push_words(line, &mut aligned);
    }
    assert!(aligner.lock().block_lock());
    let mut cut = vec![Block::IDLE; N];
    g.bench_function("block_aligner_u64_locked", |b| {
        b.iter(|| aligner.push_words_locked(black_box(line), &mut cut))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
