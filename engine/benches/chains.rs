//! The TX chain (frames -> serdes words) and RX chain (serdes words -> frames, FCS checked)
//! on 64-octet, 1518-octet and uniform 64..1518 traffic; throughput in line bytes (66 bits
//! per block). `baser bench` runs the same chains and prints multiples of the line rate.
use baser_engine::bench::{traffic, Mix, RxChainBench, TxChainBench};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("chains");
    for mix in [Mix::Min, Mix::Max, Mix::Uniform] {
        let frames = traffic(mix, 500);
        let mut tx = TxChainBench::default();
        let bits = tx.run(&frames);
        g.throughput(Throughput::Bytes(bits / 8));
        g.bench_function(format!("tx {}", mix.name()), |b| b.iter(|| tx.run(&frames)));
        let stream = TxChainBench::stream(&frames);
        let mut rx = RxChainBench::default();
        let bits = rx.run(&stream);
        g.throughput(Throughput::Bytes(bits / 8));
        g.bench_function(format!("rx {}", mix.name()), |b| b.iter(|| rx.run(&stream)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
