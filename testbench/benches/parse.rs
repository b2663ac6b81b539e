//! Text parsing alone: a `.b66` file and an `.xgmii` trace from memory, the bounds of `baser
//! decode x.b66` and of reading a trace. At the 10GBASE-R line rate a `.b66` file flows at
//! 2.97 GB/s (19 octets per 66-bit block, 156.25 M blocks/s), a trace at 3.13 GB/s (20 octets per
//! transfer).
use baser_files::InputError;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Reads everything in pieces of 4096 as the commands do, folding `key` of every item (so
/// that nothing is optimised away).
fn fold_pieces<T>(
    mut read: impl FnMut(&mut Vec<T>, usize) -> Result<bool, InputError>,
    key: impl Fn(&T) -> u64,
) -> u64 {
    let (mut piece, mut fold) = (Vec::with_capacity(4096), 0u64);
    loop {
        let more = read(&mut piece, 4096).unwrap_or(false);
        fold = piece.iter().fold(fold, |a, x| a ^ key(x));
        piece.clear();
        if !more {
            return fold;
        }
    }
}

fn bench(c: &mut Criterion) {
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
            // As `baser decode` reads: pieces of 4096 blocks.
            let mut r =
                baser_files::b66::B66Reader::new(text.as_bytes(), std::path::Path::new("m.b66"))
                    .unwrap();
            fold_pieces(|out, max| r.read_blocks(out, max), |b| b.payload)
        })
    });
    let mut text = String::from("# a trace\n");
    for i in 0..100_000u64 {
        text.push_str(&format!(
            "{:02x} {:016x}\n",
            if i % 5 == 0 { 0xff } else { 0 },
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ));
    }
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("xgmii_reader", |b| {
        b.iter(|| {
            // As `baser decode` and `baser encode` read: pieces of 4096 transfers.
            let mut r = baser_files::xgmii::XgmiiReader::new(
                text.as_bytes(),
                std::path::Path::new("m.xgmii"),
            );
            fold_pieces(|out, max| r.read_words(out, max), |w| w.data)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
