#!/usr/bin/env python3
"""Independent oracle for the Clause 108 RS(528,514) codec of fec-core.

Drives `fec-core/examples/rs_cli.rs` (built binary given by --bin) over random messages and
random symbol-error patterns and compares every answer with reedsolo
(`RSCodec(nsym=14, nsize=528, c_exp=10, prim=0x409, generator=2, fcr=0)`, PyPI, public domain):

* the two P802.3bj parity vectors (FEC-NOTES 5.3, 5.4);
* encoding: ours (sliced tables and bit-serial reference) == reedsolo, symbol for symbol;
* 1..=7 symbol errors: both decoders return the original codeword, and ours reports exactly
  the number of symbols and bits injected;
* 8..=20 symbol errors: ours must say "uncorrectable" or return a valid codeword; it must
  never return a codeword where reedsolo detects the error (a silent miscorrection the
  reference would have caught). Other disagreements (reedsolo miscorrects where we flag,
  both miscorrect) are counted and printed, not failed. Random patterns beyond t are
  miscorrected about 2e-6 of the time, so:
* constructed miscorrections: 8..=14 symbols of a weight-15 codeword (a multiple of
  x^s times the P802.3bj 0x100 vector) added to a codeword: both decoders must land on the
  same neighbouring codeword, ours reporting 15 - n corrected symbols.

Usage: python3 fec-core/tests/rs_oracle.py --bin target/debug/examples/rs_cli [--trials N]
Exit status 0 when nothing failed; the last line is "N passed, N failed".
Set up: python3 -m venv /work/venv-rs && /work/venv-rs/bin/pip install reedsolo
"""

import argparse
import random
import subprocess
import sys

try:
    import reedsolo
except ImportError:  # pragma: no cover
    sys.exit("reedsolo is missing: python3 -m venv VENV && VENV/bin/pip install reedsolo")

N, K, NSYM = 528, 514, 14


class Cli:
    """The rs_cli example as a line-oriented subprocess."""

    def __init__(self, path):
        self.p = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline()
        if not answer:
            raise RuntimeError("rs_cli closed its output")
        return answer.split()

    def encode(self, msg, ref=False):
        return [int(x) for x in self.ask(("encode-ref " if ref else "encode ") + fmt(msg))]

    def decode(self, word, ref=False):
        """(symbols, bits, corrected word) or None when uncorrectable."""
        a = self.ask(("decode-ref " if ref else "decode ") + fmt(word))
        if a[0] == "uncorrectable":
            return None
        if a[0] != "ok":
            raise RuntimeError(" ".join(a))
        return int(a[1]), int(a[2]), [int(x) for x in a[3:]]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def fmt(symbols):
    return " ".join(str(s) for s in symbols)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="path to the built rs_cli example")
    ap.add_argument("--trials", type=int, default=300, help="random trials per class")
    ap.add_argument("--seed", type=int, default=108)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rsc = reedsolo.RSCodec(nsym=NSYM, nsize=N, c_exp=10, prim=0x409, generator=2, fcr=0)
    cli = Cli(args.bin)
    passed = failed = 0
    tally = {"flagged both": 0, "flagged ours, ref miscorrected": 0,
             "miscorrected both (same)": 0, "miscorrected both (different)": 0,
             "miscorrected ours, ref flagged": 0}

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    def is_codeword(word):
        try:
            return rsc.check(word)[0]
        except Exception:  # noqa: BLE001 - reedsolo raises on malformed input
            return False

    # P802.3bj vectors.
    anslow = [0] * 513 + [0x100]
    gustlin = [1023 - i for i in range(K)]
    for name, msg, parity in [
        ("anslow", anslow, [1019, 521, 222, 72, 397, 726, 992, 600, 105, 61, 850, 645, 8, 780]),
        ("gustlin", gustlin, [451, 952, 674, 140, 539, 287, 460, 438, 559, 883, 542, 885, 930, 191]),
    ]:
        for ref in (False, True):
            check(cli.encode(msg, ref)[K:] == parity, f"{name} parity (ref={ref})")
        check(list(rsc.encode(msg))[K:] == parity, f"{name} parity (reedsolo)")

    for t in range(args.trials):
        msg = [rng.randrange(1024) for _ in range(K)]
        good = list(rsc.encode(msg))
        check(cli.encode(msg) == good, f"encode trial {t}")
        check(cli.encode(msg, ref=True) == good, f"encode-ref trial {t}")

        # 1..=7 errors: corrected exactly, counts equal.
        n = rng.randint(1, 7)
        pos = rng.sample(range(N), n)
        word = list(good)
        bits = 0
        for p in pos:
            e = rng.randrange(1, 1024)
            word[p] ^= e
            bits += bin(e).count("1")
        ref_word = list(rsc.decode(list(word))[1])
        for ref in (False, True):
            got = cli.decode(word, ref)
            check(got == (n, bits, good), f"{n} errors trial {t} (ref={ref}): {got and got[:2]}")
        check(ref_word == good, f"reedsolo {n} errors trial {t}")

        # 8..=20 errors: flagged, or a codeword; never where reedsolo detects.
        n = rng.randint(8, 20)
        word = list(good)
        for p in rng.sample(range(N), n):
            word[p] ^= rng.randrange(1, 1024)
        try:
            ref_word = list(rsc.decode(list(word))[1])
            ref_word = ref_word if is_codeword(ref_word) else None
        except reedsolo.ReedSolomonError:
            ref_word = None
        ours = cli.decode(word)
        ours_ref = cli.decode(word, ref=True)
        check(ours == ours_ref, f"{n} errors trial {t}: data path and reference path agree")
        if ours is not None:
            check(is_codeword(ours[2]), f"{n} errors trial {t}: our output is a codeword")
        if ours is None and ref_word is None:
            tally["flagged both"] += 1
        elif ours is None:
            tally["flagged ours, ref miscorrected"] += 1
        elif ref_word is None:
            tally["miscorrected ours, ref flagged"] += 1
            check(False, f"{n} errors trial {t}: silent miscorrection the reference detects")
        elif ours[2] == ref_word:
            tally["miscorrected both (same)"] += 1
        else:
            tally["miscorrected both (different)"] += 1
        # Constructed miscorrection.
        s = rng.randrange(K)
        unit = [0] * K
        unit[K - 1 - s] = rng.randrange(1, 1024)
        w = list(rsc.encode(unit))
        support = [i for i in range(N) if w[i]]
        if len(support) == 15:
            n = rng.randint(8, 14)
            word = list(good)
            for i in rng.sample(support, n):
                word[i] ^= w[i]
            neighbour = [a ^ b for a, b in zip(good, w)]
            try:
                ref_word = list(rsc.decode(list(word))[1])
            except reedsolo.ReedSolomonError:
                ref_word = None
            got = cli.decode(word)
            check(ref_word == neighbour, f"constructed trial {t}: reedsolo lands on the neighbour")
            check(got is not None and got[0] == 15 - n and got[2] == neighbour,
                  f"constructed trial {t}: ours lands on the neighbour, {15 - n} symbols")
    cli.close()
    print("8..=20 errors:", ", ".join(f"{k}: {v}" for k, v in tally.items()))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
