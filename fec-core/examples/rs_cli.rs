//! A line-oriented door to the RS(528,514) codec, for oracles (`tests/rs_oracle.py`).
//!
//! Each stdin line is a command; symbols are decimal or `0x` hex, 0..1023, first on the
//! line first (symbol 0 = coefficient of x^527). One output line per command:
//!
//! ```text
//! encode <514 symbols>       ->  <528 symbols>                   (sliced-table encoder)
//! encode-ref <514 symbols>   ->  <528 symbols>                   (bit-serial LFSR)
//! decode <528 symbols>       ->  ok <symbols> <bits> <528 symbols> | uncorrectable
//! decode-ref <528 symbols>   ->  the same, by the reference path (Horner syndromes)
//! ```
//!
//! `decode` runs the data path ([`fec_core::rs::decode`] on line bits); `ok 0 0 ...` is a
//! clean codeword. A malformed line gives `error <why>`; the program never panics on input.
use fec_core::rs::{
    decode, decode_symbols, encode_in_place, encode_symbols, Codeword, CorrectionMode,
    DecodeOutcome, K, N,
};
use std::io::{self, BufRead, Write};

fn parse<const LEN: usize>(tokens: &[&str]) -> Result<[u16; LEN], String> {
    if tokens.len() != LEN {
        return Err(format!("expected {LEN} symbols, got {}", tokens.len()));
    }
    let mut out = [0u16; LEN];
    for (d, t) in out.iter_mut().zip(tokens) {
        let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(h) => u16::from_str_radix(h, 16),
            None => t.parse::<u16>(),
        }
        .map_err(|e| format!("bad symbol {t:?}: {e}"))?;
        if v > 1023 {
            return Err(format!("symbol {v} is not 10 bits"));
        }
        *d = v;
    }
    Ok(out)
}

fn join(symbols: &[u16]) -> String {
    symbols
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn decoded(outcome: DecodeOutcome, symbols: &[u16; N]) -> String {
    match outcome {
        DecodeOutcome::Clean => format!("ok 0 0 {}", join(symbols)),
        DecodeOutcome::Corrected(p) | DecodeOutcome::NotCorrected(p) => {
            format!("ok {} {} {}", p.symbols(), p.bits(), join(symbols))
        }
        DecodeOutcome::Uncorrectable => "uncorrectable".to_string(),
    }
}

fn run(line: &str) -> Result<String, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let (command, args) = tokens.split_first().ok_or("empty line")?;
    match *command {
        "encode" => {
            let m = parse::<K>(args)?;
            let mut s = [0u16; N];
            s[..K].copy_from_slice(&m);
            let mut cw = Codeword::from_symbols(&s);
            encode_in_place(&mut cw);
            Ok(join(&cw.to_symbols()))
        }
        "encode-ref" => Ok(join(&encode_symbols(&parse::<K>(args)?))),
        "decode" => {
            let mut cw = Codeword::from_symbols(&parse::<N>(args)?);
            let outcome = decode(&mut cw, CorrectionMode::Correct);
            Ok(decoded(outcome, &cw.to_symbols()))
        }
        "decode-ref" => {
            let mut s = parse::<N>(args)?;
            let outcome = decode_symbols(&mut s, CorrectionMode::Correct);
            Ok(decoded(outcome, &s))
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match run(&line) {
            Ok(s) => writeln!(out, "{s}")?,
            Err(e) => writeln!(out, "error {e}")?,
        }
        out.flush()?;
    }
    Ok(())
}
