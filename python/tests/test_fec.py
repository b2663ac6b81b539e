"""25GBASE-R and the FECs through the Python door (issue #40): encode/decode/check with
``rate`` and ``fec``, the TX model's FEC'd line and the RX model's FEC lock, symbol errors
injected and counted, and the 25G BER monitor.

The command is $BASER, else target/debug/baser of the repository, else `baser` on PATH; the
test that needs it is skipped when none is found (CI builds it).
"""

import json
import subprocess

import pytest
from test_api import BASER, needs_cli  # the baser command, as the API tests find it

import baser

PERIOD = 16  # RS-FEC marker period (codewords): short, so that a test sees several markers


def frames(n=40):
    return [bytes((i * 7 + k) & 0xFF for k in range(60 + (i * 97) % 1400)) for i in range(n)]


def tx_line(sent, units, **kw):
    """``units`` clocks of a TX model given ``sent`` after 200 idle clocks, as .bits bytes."""
    tx = baser.TxModel(rate="25g", fec="rs", rs_marker_period=PERIOD, **kw)
    acc, n = 0, 0
    for clock in range(units):
        if clock == 200:
            for f in sent:
                tx.push(f)
        h, p, _ = tx.next()
        acc |= (h | p << 2) << n
        n += 66
    assert tx.pending == 0, "the run is long enough for every frame"
    return acc.to_bytes((n + 7) // 8, "little"), tx


def contents(doc):
    return [bytes(f["data"][:-4]) for f in doc["received"]]


def zero_counters(fec):
    return (fec["corrected_codewords"], fec["uncorrected_codewords"], fec["corrected_symbols"]) == (0, 0, 0)


def test_an_rs_line_of_the_tx_model_decodes_back_to_its_frames():
    sent = frames()
    bits, tx = tx_line(sent, 6000)
    doc = baser.decode(bits, rate="25g", fec="rs", rs_marker_period=PERIOD)
    assert doc["verdict"] == "pass"
    assert contents(doc) == sent
    fec = doc["fec"]
    assert fec["kind"] == "rs" and fec["lock"] == {"acquired_at_bit": 0, "losses": 0}
    assert zero_counters(fec) and fec["markers"] >= 2
    # The TX model held its source 4 block times a marker codeword.
    assert tx.fec["kind"] == "rs" and tx.fec["held"] == 4 * -(-tx.fec["codewords"] // PERIOD)


@needs_cli
def test_the_baser_command_decodes_the_tx_models_rs_line(tmp_path):
    sent = frames()
    bits, _ = tx_line(sent, 6000)
    line = tmp_path / "line.bits"
    line.write_bytes(bits)
    out = tmp_path / "r.json"
    pcap = tmp_path / "got.pcap"
    r = subprocess.run(
        [BASER, "decode", str(line), "--rate", "25g", "--fec", "rs", "--rs-marker-period", str(PERIOD),
         "--json", str(out), "--pcap", str(pcap)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert zero_counters(doc["fec"]) and doc["fec"]["lock"]["losses"] == 0
    assert baser.read_pcap(pcap) == sent


def test_symbol_errors_injected_in_the_tx_model_are_corrected_and_counted():
    sent = frames()
    hurt = ["symbols:3:7", "symbols:5:1", "symbols:9:4"]
    bits, tx = tx_line(sent, 6000, inject=hurt)
    assert len(tx.flipped) == 12
    doc = baser.decode(bits, rate="25g", fec="rs", rs_marker_period=PERIOD)
    assert contents(doc) == sent
    fec = doc["fec"]
    assert (fec["corrected_codewords"], fec["corrected_symbols"], fec["corrected_bits"]) == (3, 12, 12)
    assert fec["uncorrected_codewords"] == 0
    # The same line clock by clock into the RX model: the same counts, the same frames.
    rx = baser.RxModel(rate="25g", fec="rs", rs_marker_period=PERIOD)
    got, acc = [], int.from_bytes(bits, "little")
    for clock in range(len(bits) * 8 // 66):
        unit = acc >> (66 * clock)
        got += rx.push(unit & 3, (unit >> 2) & ((1 << 64) - 1)) or []
    assert [g.data[:-4] for g in got] == sent
    assert (rx.fec["corrected_symbols"], rx.fec["uncorrected_codewords"]) == (12, 0)
    # Clocks are those of the line: each frame's /S/ clock after the one before.
    assert all(a.start_clock <= b.start_clock for a, b in zip(got, got[1:]))
    doc, _ = rx.finish()
    assert json.loads(doc)["fec"]["corrected_symbols"] == 12


def test_eight_symbols_make_a_codeword_uncorrectable_and_the_decode_fail():
    bits, _ = tx_line(frames(), 6000, inject=["symbols:6:8"])
    doc = baser.decode(bits, rate="25g", fec="rs", rs_marker_period=PERIOD)
    assert doc["fec"]["uncorrected_codewords"] == 1
    assert doc["fec"]["uncorrectable"][0]["index"] == 6
    assert doc["verdict"] == "fail"


def test_the_rx_model_locks_on_a_line_moved_by_any_offset_and_on_words():
    sent = frames(10)
    bits, _ = tx_line(sent, 2500)
    acc = int.from_bytes(bits, "little") << 37  # 37 bits of nothing first
    for inp in ("units", "words"):
        rx = baser.RxModel(input=inp, rate="25g", fec="rs", rs_marker_period=PERIOD)
        got, width = [], 66 if inp == "units" else 64
        for clock in range((len(bits) * 8 + 37) // width):
            w = (acc >> (width * clock)) & ((1 << width) - 1)
            r = rx.push(w & 3, w >> 2) if inp == "units" else rx.push_word(w)
            got += r or []
        assert [g.data[:-4] for g in got] == sent, inp
        assert rx.fec["lock"]["acquired_at_bit"] == 37


def test_clause_74_through_encode_decode_and_check():
    sent = frames(20)
    for rate in ("10g", "25g"):
        e = baser.encode(sent, rate=rate, fec="fc", idle_blocks=200)
        assert e.fec["codewords"] * 2112 == len(e.bits) * 8 and e.fec["stalls"] == 0
        assert len(e) == 5  # unpacks as before
        doc = baser.decode(e.bits, rate=rate, fec="fc")
        assert contents(doc) == sent and doc["fec"]["lock"]["acquired_at_bit"] == 2112
        chk = baser.check(sent, e.bits, rate=rate, fec="fc")
        assert chk["verdict"] == "pass" and chk["fec"]["uncorrected_codewords"] == 0


def test_encode_rs_and_check_names_the_frames_an_uncorrectable_codeword_cost():
    sent = frames(30)
    e = baser.encode(sent, rate="25g", fec="rs", rs_marker_period=PERIOD, idle_blocks=200)
    assert e.fec["markers"] == -(-e.fec["codewords"] // PERIOD) and e.fec["stalls"] == 4 * e.fec["markers"]
    assert baser.check(sent, e.bits, rate="25g", fec="rs", rs_marker_period=PERIOD)["verdict"] == "pass"
    line = bytearray(e.bits)
    for k in range(8):  # 8 symbols of codeword 10
        bit = 10 * 5280 + 10 * 60 * k
        line[bit // 8] ^= 1 << (bit % 8)
    chk = baser.check(sent, bytes(line), rate="25g", fec="rs", rs_marker_period=PERIOD)
    assert chk["verdict"] == "fail" and chk["fec"]["uncorrected_codewords"] == 1


def test_rate_25g_sets_the_ber_monitor_97_invalid_headers_in_2ms():
    e = baser.encode(frames(20), idle_blocks=200)

    def hurt(n):  # n invalid sync headers, one every 3 blocks from block 300
        b = list(e.blocks)
        for k in range(n):
            b[300 + 3 * k] = (0, b[300 + 3 * k][1])
        return b

    def hi_ber(n, rate):
        return baser.decode(hurt(n), kind="b66", rate=rate)["pcs"]["hi_ber_episodes"]

    assert hi_ber(20, "10g") == [300 + 3 * 15]  # the 16th in 125 us
    assert hi_ber(20, "25g") == []
    assert hi_ber(100, "25g") == [300 + 3 * 96]  # the 97th in 2 ms
    # The RX model's monitor follows its rate too.
    for rate, want in (("10g", 1), ("25g", 0)):
        rx = baser.RxModel(input="blocks", rate=rate)
        for h, p in hurt(20):
            rx.push(h, p)
        assert rx.status["hi_ber_episodes"] == want, rate


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: baser.encode([b"x" * 60], fec="rs"), "fec: RS-FEC (Clause 108) is defined for 25GBASE-R"),
        (lambda: baser.encode([b"x" * 60], rate="40g"), "rate: unknown rate `40g`"),
        (lambda: baser.decode(b"\0" * 100, fec="ldpc"), "fec: unknown FEC `ldpc`"),
        (lambda: baser.decode([(2, 0)], kind="b66", fec="fc"), "fec=fc: the FEC's line is a bits stream"),
        (lambda: baser.TxModel(rate="25g", fec="rs", rs_marker_period=0), "rs_marker_period: 0 codewords"),
        (lambda: baser.TxModel(fec="fc", replication=9), "fec=fc"),
        (lambda: baser.TxModel(fec="fc").inject("header:3"), "below a FEC (fec=fc) the line is bits"),
        (lambda: baser.TxModel(fec="fc").xgmii(), "hands out a FEC's line"),
        (lambda: baser.RxModel(input="blocks", fec="fc"), "fec=fc: the FEC's line is serial"),
        (lambda: baser.RxModel(fec="consortium"), "Consortium"),
    ],
)
def test_bad_rate_and_fec_raise_value_errors_naming_the_key(call, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_fec_options_set_the_receive_modes_and_refuse_what_the_fec_lacks():
    sent = frames(20)
    e = baser.encode(sent, rate="25g", fec="fc", idle_blocks=200)
    line = bytearray(e.bits)
    for k in range(12):  # a 12-bit burst in FEC block 9: uncorrectable
        bit = 9 * 2112 + 300 + k
        line[bit // 8] ^= 1 << (bit % 8)
    off = baser.decode(bytes(line), rate="25g", fec="fc")
    on = baser.decode(bytes(line), rate="25g", fec="fc", fec_options={"fc_error_indication": True})
    assert off["fec"]["uncorrected_codewords"] == on["fec"]["uncorrected_codewords"] == 1
    # Clause 74 error indication marks blocks 0, 8, 16 and 24 of it (U) invalid.
    assert off["pcs"]["invalid_headers"] == 0 and on["pcs"]["invalid_headers"] == 4
    # RS-FEC bypass correction: 7 symbol errors detected, not corrected.
    bits, _ = tx_line(frames(), 6000, inject=["symbols:6:7"])
    by = {"rs_bypass_correction": True}
    doc = baser.decode(bits, rate="25g", fec="rs", rs_marker_period=PERIOD, fec_options=by)
    assert doc["fec"]["corrected_codewords"] == 0 and doc["fec"]["uncorrected_codewords"] == 1
    chk = baser.check(frames(), bits, rate="25g", fec="rs", rs_marker_period=PERIOD, fec_options=by)
    assert chk["fec"]["uncorrected_codewords"] == 1
    # The RX model: bypass indication leaves an uncorrectable codeword's blocks unmarked, and
    # the frames it hit are named as they arrive.
    bits, _ = tx_line(frames(), 6000, inject=["symbols:6:8"])
    acc = int.from_bytes(bits, "little")
    invalid = []
    for options in (None, {"rs_bypass_indication": True}):
        rx = baser.RxModel(input="units", rate="25g", fec="rs", rs_marker_period=PERIOD, fec_options=options)
        for clock in range(len(bits) * 8 // 66):
            w = (acc >> (66 * clock)) & ((1 << 66) - 1)
            rx.push(w & 3, w >> 2)
        assert rx.fec["uncorrected_codewords"] == 1 and rx.fec["uncorrectable"][0]["frames"]
        invalid.append(json.loads(rx.finish()[0])["pcs"]["invalid_headers"])
    # Marked: all 80 blocks of the codeword; unmarked: only what the errors themselves broke
    # (a transcoded block's header hit makes its four blocks malformed).
    assert invalid[0] == 80 and invalid[1] < 80
    for call, words in [
        (lambda: baser.decode(bits, rate="25g", fec="fc", fec_options=by), "fec_options: rs_bypass_correction: an RS-FEC"),
        (lambda: baser.RxModel(fec="rs", rate="25g", fec_options={"fc_error_indication": True}), "fec_options: fc_error_indication: a Clause 74"),
        (lambda: baser.check([], bits, fec="fc", fec_options={"bypass": True}), "fec_options: bypass: unknown FEC option"),
        (
            lambda: baser.decode(bits, rate="25g", fec="rs", fec_options={"rs_bypass_correction": True, "rs_bypass_indication": True}),
            "not with rs_bypass_correction",
        ),
    ]:
        with pytest.raises(ValueError, match=words):
            call()
