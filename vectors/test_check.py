#!/usr/bin/env python3
"""Tests of vectors/check.py: each failure it must report, proven on a tampered COPY
of the golden vectors in a temporary folder (the real vectors are only read).

Run from the repository root:
    python3 -m unittest vectors/test_check.py -v
    python3 vectors/test_check.py

Where a test tampers one file, it rebuilds the files made from it with check.py's own
functions (state machine encoder, scrambler, packer), so that the only fault left is
the one the test is about; each test then asserts the exit status and the message.
Python 3 standard library only.
"""

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK_PY = os.path.join(HERE, "check.py")

_spec = importlib.util.spec_from_file_location("baser_vector_check", CHECK_PY)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

CASES = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(HERE, "*", "")))


def run_check(*dirs):
    """(exit status, stdout) of check.py over the given case folders."""
    r = subprocess.run([sys.executable, CHECK_PY] + list(dirs), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def fail_lines(out):
    return [l for l in out.splitlines() if l.startswith("FAIL ")]


# --------------------------------------------------------------------------
# Writing tampered files back in the formats of DESIGN.md
# --------------------------------------------------------------------------

def read_lines(path):
    with open(path) as f:
        return f.read().split("\n")


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines))


def transfers(case_dir):
    """(header comment lines, [(mask, data)]) of expected.xgmii."""
    lines = read_lines(os.path.join(case_dir, "expected.xgmii"))
    head = [l for l in lines if l.startswith("#")]
    xs = [(mk, d) for (_n, mk, d) in check.parse_xgmii(os.path.join(case_dir, "expected.xgmii"))]
    return head, xs


def write_xgmii(case_dir, head, xs):
    write_lines(os.path.join(case_dir, "expected.xgmii"), head + [check.fmt_x(mk, d) for mk, d in xs] + [""])


def unscrambled(case_dir):
    return [(h, p) for (_n, h, p) in check.parse_b66(os.path.join(case_dir, "expected-unscrambled.b66"))[2]]


def write_unscrambled(case_dir, blocks):
    write_lines(os.path.join(case_dir, "expected-unscrambled.b66"),
                ["# unscrambled"] + [check.fmt_block(b) for b in blocks] + [""])


def rebuild_from_unscrambled(case_dir):
    """expected.b66 and expected.bits from expected-unscrambled.b66, from the stated state."""
    _first, state, _old = check.parse_b66(os.path.join(case_dir, "expected.b66"))
    st = state
    out = []
    for h, p in unscrambled(case_dir):
        st, s = check.scramble_block(st, p)
        out.append((h, s))
    write_lines(os.path.join(case_dir, "expected.b66"),
                ["# scrambled", "# scrambler_state=0x%x" % state] + [check.fmt_block(b) for b in out] + [""])
    with open(os.path.join(case_dir, "expected.bits"), "wb") as f:
        f.write(check.pack_bits(out))


def rebuild_from_xgmii(case_dir):
    """All block files from expected.xgmii by check.py's own transmit state machine."""
    _head, xs = transfers(case_dir)
    write_unscrambled(case_dir, [step.block for step in check.tx_run(xs)])
    rebuild_from_unscrambled(case_dir)


def octets(xs):
    return [lane for mk, d in xs for lane in check.lanes(mk, d)]


def from_octets(octs):
    """[(mask, data)] from [(is_control, octet)], the last transfer filled with /I/."""
    octs = list(octs) + [(1, check.XGMII_IDLE)] * (-len(octs) % 8)
    xs = []
    for i in range(0, len(octs), 8):
        mk = sum(c << k for k, (c, _v) in enumerate(octs[i:i + 8]))
        d = sum(v << (8 * k) for k, (_c, v) in enumerate(octs[i:i + 8]))
        xs.append((mk, d))
    return xs


def respace(case_dir, frame, delta):
    """Insert `delta` /I/ octets (or remove -delta) right after the /T/ of frame `frame`
    (1-based) in expected.xgmii; returns the /T/ octet position."""
    head, xs = transfers(case_dir)
    octs = octets(xs)
    ts = [i for i, (c, v) in enumerate(octs) if c and v == check.XGMII_TERM]
    t = ts[frame - 1]
    if delta >= 0:
        octs[t + 1:t + 1] = [(1, check.XGMII_IDLE)] * delta
    else:
        assert all(o == (1, check.XGMII_IDLE) for o in octs[t + 1:t + 1 - delta])
        del octs[t + 1:t + 1 - delta]
    write_xgmii(case_dir, head, from_octets(octs))
    return t


class Tampered(unittest.TestCase):
    """Each test copies the cases it needs into a fresh temporary folder."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="baser-vectors-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy(self, case):
        dst = os.path.join(self.tmp, case)
        shutil.copytree(os.path.join(HERE, case), dst)
        return dst

    def assert_fails(self, case_dir, *phrases, failures=1):
        rc, out = run_check(case_dir)
        self.assertEqual(rc, 1, out)
        fails = fail_lines(out)
        self.assertEqual(len(fails), failures, out)
        for ph in phrases:
            self.assertIn(ph, fails[0], out)
        return fails[0]

    # (e) ------------------------------------------------------------------
    def test_e_untampered_vectors_pass(self):
        self.assertEqual(len(CASES), 10, CASES)
        rc, out = run_check(*[os.path.join(HERE, c, "") for c in CASES])
        self.assertEqual(rc, 0, out)
        self.assertIn(" passed, 0 failed", out)
        for c in CASES:
            self.assertIn("PASS %s/expected-unscrambled.b66: " % c, out)
            self.assertIn("PASS %s/expected.bits: " % c, out)

    def test_e_copy_before_tampering_passes(self):
        d = self.copy("dic")
        rebuild_from_xgmii(d)   # the rebuilders alone change nothing
        rc, out = run_check(d)
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS dic/expected.xgmii: gap rule (IFG 12, deficit idle count on", out)

    # (a) ------------------------------------------------------------------
    def test_a_data_block_replaced_by_eblock_t_is_unexplained(self):
        d = self.copy("short-frames")
        blocks = unscrambled(d)
        i = next(i for i, b in enumerate(blocks) if b[0] == check.HDR_DATA)
        blocks[i] = check.EBLOCK_T
        write_unscrambled(d, blocks)
        rebuild_from_unscrambled(d)
        msg = self.assert_fails(d, "FAIL short-frames/expected-unscrambled.b66:",
                                "unexplained EBLOCK_T at line %d (block index %d;" % (i + 2, i),
                                "TX_D -(T_TYPE D)-> TX_D, which emits ENCODE(tx_raw)")
        self.assertIn("1 block(s) differ", msg)

    def test_a_idle_block_replaced_by_eblock_t_is_unexplained(self):
        d = self.copy("p802.3df")
        blocks = unscrambled(d)
        blocks[0] = check.EBLOCK_T
        write_unscrambled(d, blocks)
        rebuild_from_unscrambled(d)
        self.assert_fails(d, "unexplained EBLOCK_T at line 2 (block index 0;",
                          "TX_INIT -(T_TYPE C)-> TX_C")

    # (b) ------------------------------------------------------------------
    def test_b_stateless_encoder_misses_every_eblock_t(self):
        d = self.copy("p802.3df")
        _head, xs = transfers(d)
        blocks = unscrambled(d)
        replaced = 0
        for i, (mk, dt) in enumerate(xs):
            enc = check.encode(mk, dt)[0]
            if blocks[i] == check.EBLOCK_T and enc is not None and enc != check.EBLOCK_T:
                blocks[i] = enc
                replaced += 1
        self.assertEqual(replaced, 21)
        write_unscrambled(d, blocks)
        rebuild_from_unscrambled(d)
        msg = self.assert_fails(d, "FAIL p802.3df/expected-unscrambled.b66:", "21 block(s) differ",
                                "missing EBLOCK_T at line 7 (block index 5;",
                                "TX_D -(T_TYPE E)-> TX_E, and TX_E emits EBLOCK_T",
                                "stateless Figure 49-7 encoding")
        rc, out = run_check(d)
        self.assertIn("    missing EBLOCK_T at line 10 (block index 8;", out)   # the next one, listed below
        self.assertIn("    ... 10 more", out)

    # (c) ------------------------------------------------------------------
    def test_c_gap_four_octets_too_long_breaks_dic(self):
        # A 10-octet gap made 14: still within 9..15 and /S/ still in lane 0 or 4, but the
        # deficit idle count would go below 0.
        d = self.copy("dic")
        _head, xs = transfers(d)
        octs = octets(xs)
        ts = [i for i, (c, v) in enumerate(octs) if c and v == check.XGMII_TERM]
        ss = [i for i, (c, v) in enumerate(octs) if c and v == check.XGMII_START]
        k = next(k for k in range(len(ts) - 1) if ss[k + 1] - ts[k] == 10)   # frame k+1 is followed by 10
        respace(d, k + 1, +4)
        rebuild_from_xgmii(d)
        self.assert_fails(d, "FAIL dic/expected.xgmii: gap rule (IFG 12, deficit idle count on",
                          "gap %d, after frame %d" % (k + 1, k + 1), "is 14 octets",
                          "outside 0..3", "the rule requires 10")

    def test_c_one_idle_transfer_added_to_a_gap_breaks_dic(self):
        d = self.copy("dic")
        respace(d, 5, +8)
        rebuild_from_xgmii(d)
        self.assert_fails(d, "gap rule (IFG 12, deficit idle count on", "gap 5, after frame 5",
                          "outside 0..3")

    def test_c_one_leading_idle_transfer_removed(self):
        d = self.copy("terminate-lanes")
        head, xs = transfers(d)
        write_xgmii(d, head, xs[1:])
        rebuild_from_xgmii(d)
        self.assert_fails(d, "gap rule (", "first /S/ at line 129 lane 0, expected at line 130 lane 0 "
                          "after 128 idle transfers")

    def test_c_error_character_in_a_gap(self):
        d = self.copy("demo")
        head, xs = transfers(d)
        octs = octets(xs)
        t = [i for i, (c, v) in enumerate(octs) if c and v == check.XGMII_TERM][0]
        octs[t + 1] = (1, check.XGMII_ERROR)
        write_xgmii(d, head, from_octets(octs))
        rebuild_from_xgmii(d)
        self.assert_fails(d, "octet(s) outside frames are not /I/", "holds control 0xfe")

    # (d) ------------------------------------------------------------------
    def test_d_options_say_no_dic_on_a_dic_stream(self):
        d = self.copy("dic")
        lines = read_lines(os.path.join(d, "expected.xgmii"))
        self.assertTrue(lines[0].startswith("# made by baser "), lines[0])
        lines[0] += " --no-dic"
        write_lines(os.path.join(d, "expected.xgmii"), lines)
        self.assert_fails(d, "FAIL dic/expected.xgmii: gap rule (IFG 12, --no-dic",
                          "gap 2, after frame 2", "is 11 octets",
                          "--no-dic requires the IFG 12 rounded up to the next lane 0 or 4: 15")

    def test_d_options_say_ifg_5(self):
        d = self.copy("demo")
        lines = read_lines(os.path.join(d, "expected.xgmii"))
        lines[0] += " --ifg 5"
        write_lines(os.path.join(d, "expected.xgmii"), lines)
        self.assert_fails(d, "gap rule (IFG 5, deficit idle count on", "gap 1, after frame 1")

    def test_d_options_not_understood(self):
        d = self.copy("jumbo")
        lines = read_lines(os.path.join(d, "expected.xgmii"))
        lines[0] += " --fcs-included"
        write_lines(os.path.join(d, "expected.xgmii"), lines)
        self.assert_fails(d, "options: --fcs-included on line 1 not understood by check.py")

    def test_d_options_line_missing(self):
        d = self.copy("jumbo")
        lines = read_lines(os.path.join(d, "expected.xgmii"))
        write_lines(os.path.join(d, "expected.xgmii"), lines[1:])
        self.assert_fails(d, "options: first line", "so the gap rule it was made with is unknown")

    # check 0 ---------------------------------------------------------------
    def test_input_and_expected_xgmii_differ(self):
        d = self.copy("link-fault")
        lines = read_lines(os.path.join(d, "input.xgmii"))
        i = next(i for i, l in enumerate(lines) if l.startswith("11 "))
        lines[i] = "ff 0707070707070707"
        write_lines(os.path.join(d, "input.xgmii"), lines)
        self.assert_fails(d, "FAIL link-fault/expected.xgmii: differs from input.xgmii: line %d '11 0100009c0100009c'"
                          % (i + 1), "input.xgmii line %d 'ff 0707070707070707'" % (i + 1))

    # the known disagreement cannot outlive the disagreement ---------------
    def test_known_disagreement_entry_goes_stale(self):
        # A copy of check.py with an entry claiming the model emits the stateless encoding of
        # the /LI/ transfer of control-blocks/ (block 2, the model bug fixed in pcs-core): the
        # entry is stale, since the vector now holds EBLOCK_T there.
        src = open(os.path.join(HERE, "check.py")).read()
        entry = '{("control-blocks", 2, (0xFF, 0x0706F7DCBC7C3C1C)): "test entry"}'
        self.assertIn("KNOWN_DISAGREEMENTS = {}", src)
        script = os.path.join(self.tmp, "check_with_entry.py")
        with open(script, "w") as f:
            f.write(src.replace("KNOWN_DISAGREEMENTS = {}", "KNOWN_DISAGREEMENTS = " + entry))
        d = self.copy("control-blocks")
        p = subprocess.run([sys.executable, script, d], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("stale KNOWN_DISAGREEMENTS entry for block index 2", p.stdout)

    def test_li_among_idles_must_be_eblock_t(self):
        # The /LI/ transfer of control-blocks/ (line 4) with its stateless 0x1E encoding, as
        # the model emitted before the fix, fails as a missing EBLOCK_T.
        d = self.copy("control-blocks")
        blocks = unscrambled(d)
        blocks[2] = (1, 0x001BC66AB2D9AD1E)
        write_unscrambled(d, blocks)
        rebuild_from_unscrambled(d)
        self.assert_fails(d, "missing EBLOCK_T at line 4")

if __name__ == "__main__":
    unittest.main(verbosity=2)
