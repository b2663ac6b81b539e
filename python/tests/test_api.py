"""The Python API against the command's outputs on the golden vectors (vectors/).

The vectors' expected files were written by `baser encode`; decode and check are compared
with what `baser decode --json` / `baser check --json` write for the same inputs. The
command is $BASER, else target/debug/baser of the repository, else `baser` on PATH; the
tests that need it are skipped when none is found (CI builds it).
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import baser

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "vectors"
FRAME_CASES = sorted(p.parent.name for p in VECTORS.glob("*/frames.pcap"))


def _baser_bin():
    for c in (os.environ.get("BASER"), str(ROOT / "target" / "debug" / "baser"), shutil.which("baser")):
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    return None


BASER = _baser_bin()
needs_cli = pytest.mark.skipif(BASER is None, reason="the baser command is not built")


def cli_json(tmp_path, *args):
    out = tmp_path / "report.json"
    r = subprocess.run([BASER, *args, "--json", str(out)], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(out.read_text()), r.returncode


def read_xgmii(path):
    words, made_by = [], ""
    for line in path.read_text().splitlines():
        if line.startswith("# made by"):
            made_by = line
        elif line and not line.startswith("#"):
            c, d = line.split()
            words.append((int(c, 16), int(d, 16)))
    return words, made_by


def encode_options(made_by):
    """The options `baser encode` was run with, from the `# made by` line."""
    args = made_by.split()
    opt = {}
    if "--no-pad" in args:
        opt["pad"] = False
    if "--no-dic" in args:
        opt["dic"] = False
    if "--ifg" in args:
        opt["ifg"] = int(args[args.index("--ifg") + 1])
    if "--idle-blocks" in args:
        opt["idle_blocks"] = int(args[args.index("--idle-blocks") + 1])
    assert "--fcs-included" not in args and "--profile" not in args, made_by
    return opt


# ------------------------------------------------------------------------- encode


@pytest.mark.parametrize("case", FRAME_CASES)
def test_encode_equals_the_commands_files_block_for_block(case):
    d = VECTORS / case
    frames = baser.read_pcap(d / "frames.pcap")
    words, made_by = read_xgmii(d / "expected.xgmii")
    e = baser.encode(frames, **encode_options(made_by))
    blocks, scrambled, state = baser.read_b66(d / "expected.b66")
    assert scrambled and state == 0x3FFFFFFFFFFFFFF
    unscrambled, s2, _ = baser.read_b66(d / "expected-unscrambled.b66")
    assert not s2
    assert len(e.blocks) == len(blocks)
    assert e.blocks == blocks
    assert e.unscrambled == unscrambled
    assert e.xgmii == words
    assert e.bits == (d / "expected.bits").read_bytes()
    assert len(e.starts) == len(frames)
    for block, lane in e.starts:
        ctrl, data = e.xgmii[block]
        assert ctrl >> lane & 1 and (data >> (8 * lane)) & 0xFF == 0xFB


def test_encode_options_reach_the_chain():
    frames = [bytes([i]) * (60 + i) for i in range(8)]
    base = baser.encode(frames, idle_blocks=0)
    assert base.starts[0] == (0, 0)
    assert baser.encode(frames, idle_blocks=5).starts[0] == (5, 0)
    assert baser.encode(frames, seed=0).blocks != base.blocks
    assert baser.encode(frames, idle_blocks=0, dic=False).starts != base.starts
    # a frame with its FCS given is sent as it is: the same line as the MAC's own FCS
    with_fcs = [f + struct.pack("<I", zlib.crc32(f)) for f in frames]
    assert baser.encode(with_fcs, idle_blocks=0, fcs_included=True).blocks == base.blocks


# ------------------------------------------------------------------- decode, check


def _pcs(doc):
    return doc["pcs"]


@needs_cli
@pytest.mark.parametrize("name", ["dut.b66", "dut.bits", "expected.b66", "expected.bits", "expected.xgmii"])
def test_decode_gives_the_commands_document(tmp_path, name):
    path = VECTORS / "demo" / name
    want, code = cli_json(tmp_path, "decode", str(path))
    if name.endswith(".b66"):
        blocks, scrambled, state = baser.read_b66(path)
        got = baser.decode(blocks, "b66", scrambled=scrambled, scrambler_state=state, name=str(path))
    elif name.endswith(".bits"):
        got = baser.decode(path.read_bytes(), name=str(path))
    else:
        got = baser.decode(read_xgmii(path)[0], "xgmii", name=str(path))
    received = got.pop("received")
    assert got == want
    assert (code == 0) == (got["verdict"] == "pass")
    assert len(received) == want["frames"]["total"]
    for f in received:
        assert len(f["data"]) == f["len"]


@needs_cli
@pytest.mark.parametrize("name", ["dut.b66", "dut.bits", "expected.b66", "expected.bits", "expected.xgmii"])
@pytest.mark.parametrize("blocks", [False, True])
def test_check_gives_the_commands_document(tmp_path, name, blocks):
    if blocks and name.endswith(".xgmii"):
        pytest.skip("--blocks needs a block stream")
    d = VECTORS / "demo"
    path = d / name
    args = ["check", "--frames", str(d / "frames.pcap"), "--dut", str(path)] + (["--blocks"] if blocks else [])
    want, code = cli_json(tmp_path, *args)
    frames = baser.read_pcap(d / "frames.pcap")
    names = dict(expected_name=str(d / "frames.pcap"), dut_name=str(path))
    if name.endswith(".b66"):
        b, scrambled, state = baser.read_b66(path)
        got = baser.check(frames, b, "b66", scrambled=scrambled, scrambler_state=state, blocks=blocks, **names)
    elif name.endswith(".bits"):
        got = baser.check(frames, path.read_bytes(), blocks=blocks, **names)
    else:
        got = baser.check(frames, read_xgmii(path)[0], "xgmii", **names)
    assert got == want
    assert (code == 0) == (got["verdict"] == "pass")


def test_check_names_the_demos_faults():
    d = VECTORS / "demo"
    blocks, scrambled, state = baser.read_b66(d / "dut.b66")
    doc = baser.check(baser.read_pcap(d / "frames.pcap"), blocks, "b66", scrambler_state=state)
    assert doc["verdict"] == "fail"
    s = doc["summary"]
    assert (s["matched"], s["corrupted"], s["missing"], s["extra"]) == (8, 1, 1, 0)
    corrupted = next(f for f in doc["frames"] if f["status"] == "corrupted")
    assert corrupted["expected_index"] == 2
    assert corrupted["first_difference"]["offset"] == 310
    assert doc["pcs"]["invalid_headers"] == 1 and doc["pcs"]["errored_blocks"] == 1
    # the clean stream passes
    good, _, state = baser.read_b66(d / "expected.b66")
    assert baser.check(baser.read_pcap(d / "frames.pcap"), good, scrambler_state=state)["verdict"] == "pass"


def test_units_from_any_offset_are_decoded_offline():
    frames = [bytes([i]) * (60 + 37 * i) for i in range(10)]
    bits = baser.encode(frames, idle_blocks=3).bits
    for skip in (0, 1, 30, 65):
        units = _units(bits, skip)
        doc = baser.check(frames, units, "units")
        assert doc["verdict"] == "pass", (skip, doc["summary"], doc["pcs"])
        # as a receiver: the first frames come before lock
        assert baser.check(frames, units, "units", receiver_view=True)["verdict"] == "fail"


# -------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: baser.encode([b"x" * 60], profile="nope"), "unknown profile `nope`"),
        (lambda: baser.encode([b"x" * 20000]), "longer than the MAC's largest frame"),
        (lambda: baser.encode([b"x" * 60], seed=1 << 58), "more than 58 bits"),
        (lambda: baser.encode([b"x" * 60], dic_mode="sometimes"), "unknown dic mode"),
        (lambda: baser.encode([b"abc"], fcs_included=True), "has no FCS"),
        (lambda: baser.decode([(5, 0)], "b66"), "sync header 5"),
        (lambda: baser.decode([], "b66"), "no blocks"),
        (lambda: baser.decode(b"", "bits"), "no bits"),
        (lambda: baser.decode([(1, 2)], "nonsense"), "unknown stream kind"),
        (lambda: baser.decode([(1, "x")], "b66"), "(header, payload) pairs"),
        (lambda: baser.check([b"x" * 60], [(1, 1 << 64)], "b66"), ""),
        (lambda: baser.TxModel(ifg=12, profile="x"), "unknown profile"),
        (lambda: baser.TxModel().push(b"x" * 20000), "longer than the MAC's largest frame"),
        (lambda: baser.TxModel().push(b"x" * 60, b"12"), "an FCS is 4 octets"),
        (lambda: baser.RxModel(input="bytes"), "unknown input"),
        (lambda: baser.RxModel().push(4, 0), "sync header 4"),
        (lambda: baser.RxModel(input="words").push(1, 0), "takes 64-bit words"),
    ],
)
def test_bad_input_raises_value_error_with_the_message(call, words):
    with pytest.raises((ValueError, OverflowError, TypeError)) as e:
        call()
    assert words in str(e.value)


def test_garbage_never_panics():
    import random

    rng = random.Random(7)
    for n in range(30):
        blob = rng.randbytes(rng.randint(1, 3000))
        baser.decode(blob, "bits")
        baser.decode(blob, "bits", offline=True)
        blocks = [(rng.randint(0, 3), rng.getrandbits(64)) for _ in range(rng.randint(1, 300))]
        for kind in ("b66", "units", "xgmii"):
            baser.decode(blocks, kind, profile=rng.choice(baser.PROFILES))
        baser.check([blob[:60]], blocks, "b66", blocks=True)
        rx = baser.RxModel()
        for h, p in blocks:
            rx.push(h, p)
        rx.finish()


# ------------------------------------------------------------------ streaming


def test_tx_model_gives_encodes_stream_block_for_block():
    frames = [bytes([i]) * (60 + 97 * i) for i in range(12)] + [b"\x42" * 9000]
    for dic_mode in ("reset-on-idle", "strict", "off"):
        want = baser.encode(frames, idle_blocks=0, dic_mode=dic_mode)
        tx = baser.TxModel(dic_mode=dic_mode)
        ids = [tx.push(f) for f in frames]
        got, events = [], []
        for i in range(len(want.blocks)):
            h, p, ev = tx.next()
            got.append((h, p))
            events += [(k, fid, lane, i) for k, fid, lane in ev or ()]
        assert got == want.blocks, dic_mode
        starts = [(i, lane) for k, fid, lane, i in events if k == 0]
        assert starts == want.starts
        assert [fid for k, fid, _, _ in events if k == 2] == ids
        assert tx.pending == 0


def test_tx_model_frames_given_while_sending_and_idle_periods():
    frames = [bytes([i]) * (60 + 211 * i) for i in range(7)]
    tx = baser.TxModel(seed=0x123)
    out, when = [], {}
    for clock in range(3000):
        if clock in (5, 6, 40, 41, 900, 2500):  # while busy, back to back, after long idles
            f = frames[len(when)]
            when[tx.push(f)] = clock
        h, p, ev = tx.next()
        out.append((h, p))
        for k, fid, lane in ev or ():
            if k == 0:
                assert out and len(out) - 1 >= when[fid]
    # a TxModel's stream is a clean 10GBASE-R stream holding every frame
    doc = baser.check(frames[: len(when)], out, "b66", scrambler_state=0x123)
    assert doc["verdict"] == "pass", doc["summary"]
    assert doc["summary"]["matched"] == len(when)
    # one block per clock, whatever the segments
    assert tx.blocks == 3000


def test_tx_model_takes_ifg_0_and_jumbo_frames():
    frames = [bytes([i]) * n for i, n in enumerate((60, 61, 9214 + 14, 63, 1514))]
    for ifg in (0, 5, 12, 40):
        tx = baser.TxModel(ifg=ifg)
        out = [tx.next()[:2] for _ in range(2)]
        for f in frames:
            tx.push(f)
        out += [tx.next()[:2] for _ in range(1400)]
        doc = baser.check(frames, out, "b66")
        assert doc["verdict"] == "pass", (ifg, doc["summary"], doc["pcs"])


def test_tx_model_bit_offset_and_reverse():
    frames = [b"\x11" * 100, b"\x22" * 300]
    plain = baser.TxModel()
    moved = baser.TxModel()
    moved.bit_offset = 13
    rev = baser.TxModel(reverse=True)
    # two idle blocks first: a receiver's first block trains its descrambler
    a, b, r = [plain.next()[:2] for _ in range(2)], [moved.next()[:2] for _ in range(2)], [rev.next()[:2] for _ in range(2)]
    for f in frames:
        plain.push(f), moved.push(f), rev.push(f)
    a += [plain.next()[:2] for _ in range(200)]
    b += [moved.next()[:2] for _ in range(200)]
    r += [rev.next()[:2] for _ in range(200)]
    assert r == [(((h & 1) << 1) | (h >> 1), int(f"{p:064b}"[::-1], 2)) for h, p in a]
    # the moved stream is the same line, 13 bits later
    ua, ub = _bits(a), _bits(b)
    assert ub[13:] == ua[: len(ub) - 13]
    assert baser.check(frames, b, "units")["verdict"] == "pass"


def test_tx_model_bit_offset_keeps_every_bit_at_every_offset():
    # Each offset 0..65: the moved line is the plain one, `off` bits later, all 66 bits of
    # every unit (offsets 1..3 once lost a unit's last bits to a u128 shift overflow).
    frames = [bytes(range(256)) * 2, b"\xff" * 200]
    plain = baser.TxModel()
    for f in frames:
        plain.push(f)
    a = [plain.next()[:2] for _ in range(60)]
    ua = _bits(a)
    for off in range(66):
        moved = baser.TxModel()
        moved.bit_offset = off
        for f in frames:
            moved.push(f)
        ub = _bits([moved.next()[:2] for _ in range(60)])
        assert ub[off:] == ua[: len(ub) - off], off


def test_rx_model_per_clock_equals_check():
    frames = [bytes([i]) * (60 + 131 * i) for i in range(9)]
    bits = baser.encode(frames, idle_blocks=2).bits
    for skip in (0, 7, 64):
        rx = baser.RxModel(view="offline")  # frames sent before block lock are kept
        got = []
        units = _units(bits, skip)
        for i, (h, p) in enumerate(units):
            for f in rx.push(h, p) or ():
                got.append(f)
                assert f[6] <= i  # the SFD's block came in at or before this clock
        doc, last = rx.finish()
        got += last or []
        assert [f[0][:-4] for f in got] == frames
        assert all(f[1] == "ok" and f[2] for f in got)
        assert json.loads(doc)["pcs"]["lock_acquired"] is not None


def test_rx_model_words_and_blocks():
    frames = [bytes([i]) * (60 + 50 * i) for i in range(5)]
    e = baser.encode(frames, idle_blocks=2)
    rx = baser.RxModel(input="words", view="offline")
    padded = e.bits + bytes(-len(e.bits) % 8)
    got = []
    for i in range(0, len(padded), 8):
        got += rx.push_word(int.from_bytes(padded[i : i + 8], "little")) or []
    got += rx.finish()[1] or []
    assert [f[0][:-4] for f in got] == frames
    rx = baser.RxModel(input="blocks", scrambled=False)
    got = []
    for h, p in e.unscrambled:
        got += rx.push(h, p) or []
    got += rx.finish()[1] or []
    assert [f[0][:-4] for f in got] == frames
    with pytest.raises(ValueError, match="finished"):
        rx.push(1, 0)


def _units_bits(units):
    return [(h | p << 2) for h, p in units]


def test_tx_model_injects_faults_on_the_line():
    frames = [bytes([i]) * (60 + 70 * i) for i in range(10)]

    def run(n=600, inject=(), later=None):
        tx = baser.TxModel(inject=list(inject))
        for f in frames:
            tx.push(f)
        out = []
        for clock in range(n):
            if later and clock == later[0]:
                tx.inject(later[1])
            out.append(tx.next()[:2])
        return _units_bits(out), tx.flipped

    clean, none = run()
    assert none == []
    # a flip at line bit 2000: unit 30, bit 20, and nothing else
    flip, where = run(inject=["flip:2000"])
    assert where == [2000]
    assert [i for i, (a, b) in enumerate(zip(clean, flip)) if a != b] == [30]
    assert clean[30] ^ flip[30] == 1 << 20
    # added while running: positions count from the next block
    hdr, _ = run(later=(100, "header:0"))
    assert hdr[100] & 3 == 0 and clean[100] & 3 != 0
    assert hdr[:100] == clean[:100] and hdr[101:] == clean[101:]
    # a dropped block: the stream goes on with the block after it, one unit per clock
    drop, _ = run(later=(50, "drop:1"))
    assert drop[:51] == clean[:51] and drop[51:599] == clean[52:600]
    # random errors: exactly the bits reported, at about the rate
    ber, where = run(n=3000, inject=["ber:1e-3:5"])
    clean3, _ = run(n=3000)
    diff = [66 * i + b for i, (x, y) in enumerate(zip(clean3, ber)) for b in range(66) if (x ^ y) >> b & 1]
    assert diff == sorted(where) and 120 < len(where) < 280
    with pytest.raises(ValueError, match="expected flip:BIT"):
        baser.TxModel(inject=["zap:1"])
    with pytest.raises(ValueError, match="not a non-negative integer"):
        baser.TxModel().inject("flip:x")


def test_rx_model_status_is_live():
    frames = [bytes([i]) * (60 + 50 * i) for i in range(4)]
    e = baser.encode(frames, idle_blocks=2)
    rx = baser.RxModel(input="blocks")
    assert rx.status["blocks"] == 0 and rx.status["last_error"] is None
    bad_at = len(e.blocks) // 2
    seen = []
    for i, (h, p) in enumerate(e.blocks):
        rx.push(0 if i == bad_at else h, p)
        st = rx.status
        seen.append(st["invalid_headers"])
        assert st["blocks"] == i + 1 and st["block_lock"] and not st["hi_ber"]
    # the invalid header shows in the clock it arrived, not before
    assert seen.index(1) == bad_at and seen[-1] == 1
    assert rx.status["link_fault"] == "Ok"
    assert rx.status["errored_blocks"] == 1
    # the arrow into RX_E, in the spec's letters, with its block
    block, what = rx.status["last_error"]
    assert block == bad_at and "--> RX_E: invalid sync header" in what and what.startswith("RX_")


def test_scoreboard_judges_as_check_does():
    import zlib

    frames = [bytes([i + 1]) * (60 + 40 * i) for i in range(5)]

    def fcs(f):
        return f + zlib.crc32(f).to_bytes(4, "little")

    sb = baser.Scoreboard(name="t")
    for f in frames:
        sb.expect(f)
    assert sb.push(fcs(frames[0])) == []
    assert sb.push(frames[1], fcs_included=False) == []
    bad = bytearray(fcs(frames[3]))
    bad[70] ^= 0x10
    msgs = sb.push(bytes(bad))  # frame 2 missing, frame 3 corrupted
    assert any("expected frame 2 missing" in m for m in msgs) or any("differs" in m for m in msgs), msgs
    assert sb.divergences >= 1 and sb.first
    with pytest.raises(AssertionError, match="baser scoreboard: FAIL"):
        sb.check()
    with pytest.raises(RuntimeError, match="finished"):
        sb.push(fcs(frames[4]))
    # all in order: pass, and the document is check's
    sb = baser.Scoreboard()
    for f in frames:
        sb.expect(f)
        assert sb.push(fcs(f)) == []
    doc = json.loads(sb.check())
    assert doc["verdict"] == "pass" and doc["summary"]["matched"] == 5


def test_import_needs_no_cocotb():
    code = (
        "import sys; sys.modules['cocotb'] = None\n"
        "import baser\n"
        "assert baser.encode([b'x' * 60]).blocks\n"
        "try:\n    baser.BaseRSerdesSource\nexcept ImportError:\n    print('lazy')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "lazy"


# ------------------------------------------------------------------- helpers


def _bits(units):
    """The line bits of 66-bit units, as a list of 0/1."""
    out = []
    for h, p in units:
        out += [h & 1, h >> 1 & 1] + [p >> i & 1 for i in range(64)]
    return out


def _units(data, skip):
    """The whole 66-bit units of a serial byte stream that starts `skip` bits in."""
    n = len(data) * 8
    value = int.from_bytes(data, "little") >> skip
    n -= skip
    return [((value >> (66 * u)) & 3, (value >> (66 * u + 2)) & ((1 << 64) - 1)) for u in range(n // 66)]


def test_files_are_read_by_the_commands_readers_and_errors_name_file_and_line(tmp_path):
    frames = [bytes(range(n % 256)) * 1 + bytes(60) for n in (0, 17, 200)]
    p = tmp_path / "f.pcap"
    baser.write_pcap(p, frames)
    assert [bytes(f) for f in baser.read_pcap(p)] == frames
    # a record cut short: the reader names the file
    data = p.read_bytes()
    (tmp_path / "cut.pcap").write_bytes(data[:-5])
    with pytest.raises(ValueError, match="cut.pcap"):
        baser.read_pcap(tmp_path / "cut.pcap")
    with pytest.raises(OSError):
        baser.read_pcap(tmp_path / "missing.pcap")
    b = tmp_path / "x.b66"
    baser.write_b66(b, [(2, 0x0123456789ABCDEF), (1, 0x1E)], scrambled=False)
    assert baser.read_b66(b) == ([(2, 0x0123456789ABCDEF), (1, 0x1E)], False, None)
    b.write_text("# scrambled\n2 0123456789abcdef\n4 0000000000000000\n")
    with pytest.raises(ValueError, match=r"x\.b66:3:"):
        baser.read_b66(b)


# ------------------------------------------------------------------ one live receiver


def test_rx_model_views_receiver_loses_frames_before_lock_offline_keeps_them():
    frames = [bytes([i + 1]) * (60 + 300 * i) for i in range(6)]
    units = _units(baser.encode(frames, idle_blocks=2).bits, 7)
    got = {}
    for view in ("receiver", "offline"):
        rx = baser.RxModel(view=view)
        out = []
        for h, p in units:
            out += rx.push(h, p) or []
        out += rx.finish()[1] or []
        got[view] = [f.data[:-4] for f in out]
    assert got["offline"] == frames
    # a receiver locks after 64 blocks and more: the first frames were on the line before
    assert 0 < len(got["receiver"]) < len(frames)
    assert got["receiver"] == frames[len(frames) - len(got["receiver"]) :]
    assert baser.RxModel().aligned  # the receiver's view decodes from the first bit
    with pytest.raises(ValueError, match="expected receiver or offline"):
        baser.RxModel(view="aligned")


def test_rx_frames_have_named_fields_and_index_as_the_tuples_did():
    frames = [bytes([i + 1]) * (60 + 50 * i) for i in range(3)]
    e = baser.encode(frames, idle_blocks=2)
    rx = baser.RxModel(input="blocks")
    got = []
    for h, p in e.blocks:
        got += rx.push(h, p) or []
    got += rx.finish()[1] or []
    assert len(got) == 3
    for f, (block, lane) in zip(got, e.starts):
        data, cls, fcs_ok, start_block, start_lane, start_clock, data_clock, end_clock = f
        assert (data, cls, fcs_ok) == (f.data, f.class_, f.fcs_ok) == (f[0], f[1], f[2])
        assert (start_block, start_lane) == (block, lane) == (f.start_block, f.start_lane)
        assert f[-1] == end_clock and len(f) == 8 and tuple(f)[3:5] == (block, lane)
        # the SFD 7 octets after the /S/, the first octet after it 8, the end after the FCS
        s = 8 * block + lane
        assert (f.sfd_clock, f.sfd_lane) == ((s + 7) // 8, (s + 7) % 8)
        assert (data_clock, f.data_lane) == ((s + 8) // 8, lane)
        assert (end_clock, f.end_lane) == ((s + 8 + len(data)) // 8, (s + 8 + len(data)) % 8)
        assert not f.link_down and "class_='ok'" in repr(f)


def test_tx_model_marks_and_settings_taken_between_frames():
    tx = baser.TxModel(ifg=12)
    tx.push(bytes(100))
    marks = []
    for i in range(40):
        for k, fid, lane in tx.next()[2] or ():
            marks.append((k, fid, i * 8 + lane))
            if k == 0:
                tx.configure(ifg=40)  # a frame is under way: taken after it
    kinds = {k: at for k, _, at in marks}
    assert kinds[1] == kinds[0] + 7 and kinds[3] == kinds[0] + 8 and kinds[2] > kinds[3]
    # ids go on across the new settings; the gap is the new one
    a, b = tx.push(bytes(100)), tx.push(bytes(100))
    assert (a, b) == (1, 2)
    ends, starts = {}, {}
    for i in range(100):
        for k, fid, lane in tx.next()[2] or ():
            (starts if k == 0 else ends if k == 2 else {})[fid] = (40 + i) * 8 + lane
    assert starts[b] - ends[a] >= 40


def test_usxgmii_replication_round_trip_in_the_engine():
    frames = [bytes([i + 1]) * (60 + 30 * i) for i in range(4)]
    for copies in (1, 4, 9):
        tx = baser.TxModel(replication=copies)
        rx = baser.RxModel(input="blocks")
        rx.replication = copies
        assert tx.replication == copies and rx.replication == copies
        got, sfd, data = [], {}, {}
        for i in range(400 * (copies + 1)):
            if i == 2:  # after a block that trains the receiver's descrambler
                for f in frames:
                    tx.push(f)
            h, p, ev = tx.next()
            for k, fid, lane in ev or ():
                if k == 1:
                    sfd[fid] = 8 * i + lane
                if k == 3:
                    data[fid] = 8 * i + lane
            got += rx.push(h, p) or []
        got += rx.finish()[1] or []
        assert [f.data[:-4] for f in got] == frames, copies
        # taxi's sim_time_sfd: the DA's first copy, after the SFD column's copies
        assert all(data[i] - sfd[i] == 1 + 4 * copies for i in sfd), copies
        # the receiver places the kept copies on the line
        assert [8 * f.data_clock + f.data_lane for f in got] == [data[i] for i in range(4)]


def test_the_stub_names_what_the_extension_has():
    import ast
    import pathlib

    stub = ast.parse((pathlib.Path(baser.__file__).parent / "_baser.pyi").read_text())
    top = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n in dir(baser._baser) if not n.startswith("_") and n != "PROFILES"}
    assert public <= top, public - top
    for cls in stub.body:
        if isinstance(cls, ast.ClassDef):
            names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
            names |= {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)}
            have = {n for n in dir(getattr(baser._baser, cls.name)) if not n.startswith("_")}
            assert have <= names, (cls.name, have - names)


def test_a_shortened_ber_timer_is_an_option_of_every_receiver():
    # 16 invalid sync headers, one every 10 blocks: within one standard window (125 us =
    # 19531 blocks at 10G) they trip hi_ber; with the window shortened to 100 blocks, as RTL
    # benches shorten COUNT_125US, at most 10 fall in a window and it never trips.
    e = baser.encode([bytes(range(60))] * 100, idle_blocks=200)
    hurt = list(e.blocks)
    for k in range(16):
        hurt[300 + 10 * k] = (0, hurt[300 + 10 * k][1])

    def episodes(**kw):
        return baser.decode(hurt, kind="b66", **kw)["pcs"]["hi_ber_episodes"]

    assert episodes() == [300 + 10 * 15]
    assert episodes(ber_timer="125us") == [300 + 10 * 15]
    assert episodes(ber_timer="100blocks") == []
    # 16 inside one 100-block window still trip it.
    tight = list(e.blocks)
    for k in range(16):
        tight[350 + 2 * k] = (0, tight[350 + 2 * k][1])
    assert baser.decode(tight, kind="b66", ber_timer="100blocks")["pcs"]["hi_ber_episodes"] == [380]
    for timer, want in ((None, 1), ("100blocks", 0)):
        rx = baser.RxModel(input="blocks", ber_timer=timer)
        for h, p in hurt:
            rx.push(h, p)
        assert rx.status["hi_ber_episodes"] == want, timer
    sent = [bytes(range(60))] * 100
    assert baser.check(sent, e.blocks, kind="b66", ber_timer="100blocks")["verdict"] == "pass"
    with pytest.raises(ValueError, match="ber_timer"):
        baser.RxModel(ber_timer="5 parsecs")
