//! MAC pieces: FCS, framing into XGMII, receive with FCS check.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mac_core::frame::fcs;
use mac_core::rx::MacRx;
use mac_core::tx::{MacTx, TxConfig};
use pcs_core::XgmiiWord;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("mac");
    for len in [60usize, 1514] {
        let frame: Vec<u8> = (0..len).map(|i| i as u8).collect();
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(format!("fcs_{len}"), |b| b.iter(|| fcs(black_box(&frame))));
        let mut tx = MacTx::new(TxConfig::default());
        let mut words = vec![XgmiiWord::IDLE; 256];
        g.bench_function(format!("tx_encode_frame_{len}"), |b| {
            b.iter(|| tx.encode_frame(black_box(&frame), &mut words))
        });
        let mut tx = MacTx::new(TxConfig::default());
        let mut stream = Vec::new();
        for _ in 0..16 {
            let n = tx.encode_frame(&frame, &mut words).unwrap_or(0);
            stream.extend_from_slice(&words[..n]);
        }
        let mut rx = MacRx::<16384>::default();
        g.throughput(Throughput::Bytes(16 * len as u64));
        g.bench_function(format!("rx_push_slice_16x{len}"), |b| {
            b.iter(|| {
                let mut n = 0;
                rx.push_slice(black_box(&stream), |f| n += f.fcs_ok as u32);
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
