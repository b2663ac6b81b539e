//! The TX chain (frames -> serdes words) and RX chain (serdes words -> frames, FCS checked)
//! on 64-octet, 1518-octet and uniform 64..1518 traffic; throughput in line bytes (66 bits
//! per block). `baser bench` runs the same chains and prints multiples of the line rate.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use testbench::bench::{traffic, Mix, RxChainBench, TxChainBench};

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
    // Text parsing alone: a .b66 file from memory.
    let mut text = String::from("# unscrambled\n");
    for i in 0..100_000u64 {
        text.push_str(&format!(
            "{} {:016x}\n",
            1 + (i % 2),
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ));
    }
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("b66_reader", |b| {
        b.iter(|| {
            let r = testbench::format::b66::B66Reader::new(
                text.as_bytes(),
                std::path::Path::new("m.b66"),
            )
            .unwrap();
            r.map(|x| x.map_or(0, |b| b.payload))
                .fold(0u64, |a, p| a ^ p)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
