//! The commands users run, end to end with their files (`encode x.pcap --bits`, `decode
//! x.bits --pcap`, `decode x.b66 --pcap`), next to the engine's chains on the same frames, and
//! the ratio command / chain (issue 10 asks for >= 0.7). Throughput is line data (66 bits per
//! block). `baser bench` runs the same commands (`CommandFiles`) and prints the same ratio.
//! Files go to /dev/shm when it exists (the system's temporary folder otherwise).
use baser_engine::bench::{traffic, Mix, RxChainBench, TxChainBench};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::cell::Cell;
use std::time::{Duration, Instant};
use testbench::cmd::bench::CommandFiles;

const FRAMES: usize = 50_000;

/// Times `f` for criterion and keeps the total, for the ratio printed at the end.
fn timed(
    b: &mut criterion::Bencher<'_>,
    total: &Cell<(Duration, u64)>,
    mut f: impl FnMut() -> u64,
) {
    b.iter_custom(|iters| {
        let t = Instant::now();
        let mut bits = 0;
        for _ in 0..iters {
            bits += f();
        }
        let e = t.elapsed();
        let (d, n) = total.get();
        total.set((d + e, n + bits));
        e
    });
}

fn gbps(total: &Cell<(Duration, u64)>) -> f64 {
    let (d, bits) = total.get();
    bits as f64 / d.as_secs_f64().max(1e-12) / 1e9
}

fn bench(c: &mut Criterion) {
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let mut ratios = Vec::new();
    for mix in [Mix::Uniform, Mix::Min] {
        let files = CommandFiles::new(mix, FRAMES, &dir).expect("the bench's files");
        let line = files.line_bits();
        let frames = traffic(mix, FRAMES);
        let stream = TxChainBench::stream(&frames);
        let mut g = c.benchmark_group(format!("commands {}", mix.name()));
        g.sample_size(10).measurement_time(Duration::from_secs(4));
        g.throughput(Throughput::Bytes(line / 8));
        let cells: [Cell<(Duration, u64)>; 5] = Default::default();
        let mut tx = TxChainBench::default();
        g.bench_function("chain tx", |b| timed(b, &cells[0], || tx.run(&frames)));
        g.bench_function("encode .pcap --bits", |b| {
            timed(b, &cells[1], || files.encode_bits().map_or(0, |()| line))
        });
        let mut rx = RxChainBench::default();
        g.bench_function("chain rx", |b| timed(b, &cells[2], || rx.run(&stream)));
        g.bench_function("decode .bits --pcap", |b| {
            timed(b, &cells[3], || files.decode_bits().map_or(0, |()| line))
        });
        g.bench_function("decode .b66 --pcap", |b| {
            timed(b, &cells[4], || files.decode_b66().map_or(0, |()| line))
        });
        g.finish();
        let [tx, enc, rx, dec_bits, dec_b66] = cells.each_ref().map(gbps);
        ratios.push((mix, "encode .pcap --bits", enc, enc / tx));
        ratios.push((mix, "decode .bits --pcap", dec_bits, dec_bits / rx));
        ratios.push((mix, "decode .b66 --pcap", dec_b66, dec_b66 / rx));
    }
    println!(
        "command / chain, line data ({} frames per mix, files in {}):",
        FRAMES,
        dir.display()
    );
    for (mix, cmd, g, r) in ratios {
        println!(
            "  {cmd:<22} {:<18} {g:6.2} Gb/s  x10G {:.2}  vs chain {r:.2}",
            mix.name(),
            g / 10.3125
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
