"""The transmit verdict is the engine's (``_baser.conformance_tx_verdict``, which
``baser.conformance`` and the C ABI's replay use); the Python it replaced
(conformance_tx_reference.py) is its oracle: both judge the same lines, made by the model's
transmitter, correct and with planted faults, and must agree."""

import re

import pytest

import conformance_tx_reference as ref
from baser import _baser
from baser.conformance._line import scramble


def frames(lengths):
    head = bytes.fromhex("020000000002020000000001") + b"\x88\xb5"
    return [(head + bytes([i]) * n)[:n] for i, n in enumerate(lengths)]


TX_DIC = frames([64, 65, 66, 67] * 4 + [60, 100, 61, 200, 75, 301])
TX_ABORT = frames([200] * 6)


def line(fs, *, dic=True, skip=(), ifg=12, lead=40, tail=60):
    """The model's line for ``fs`` (without those at ``skip``), scrambled, with ``lead`` idle
    blocks before (the receiver trains its descrambler) and ``tail`` after."""
    tx = _baser.TxModel(ifg=ifg, dic=dic, scrambled=False)
    blocks = [tx.next()[:2] for _ in range(lead)]
    for i, f in enumerate(fs):
        if i not in skip:
            tx.push(bytes(f))
    ends = len(fs) - len(skip)
    while ends:
        h, p, ev = tx.next()
        blocks.append((h, p))
        ends -= sum(1 for kind, _, _ in ev or () if kind == 2)
    blocks += [tx.next()[:2] for _ in range(tail)]
    return scramble(blocks)[0]


def flip(ln, k, bit):
    out = list(ln)
    h, p = out[k]
    out[k] = (h, p ^ (1 << bit))
    return out


def both(ln, fs, aborts=(), **kw):
    engine = _baser.conformance_tx_verdict(fs, sorted(aborts), ln, **kw)
    oracle = ref.verdict(ln, fs, aborts, **kw)
    return engine, oracle


def same_words(engine, oracle):
    """The engine's words are the oracle's, except where the oracle printed a structure
    (``first_difference``'s dict, a block pair's or a gap's list): there the engine says the
    same fields in words. Those carry the oracle's numbers."""
    assert len(engine) == len(oracle), (engine, oracle)
    for e, o in zip(engine, oracle):
        cut = min((i for i in (o.find("{"), o.find("[")) if i >= 0), default=-1)
        if cut < 0:
            assert e == o
            continue
        assert e.startswith(o[:cut].rstrip()), (e, o)
        for n in re.findall(r"\d+", o[cut:]):
            assert n in re.findall(r"\d+", e) or n in e, (n, e, o)


def test_the_models_line_passes_both():
    for fs in (TX_DIC, frames([14, 30, 59, 60, 1514, 9000, 17])):
        engine, oracle = both(line(fs), fs)
        assert engine == oracle == []


def test_a_line_without_the_deficit_idle_count_fails_both_alike():
    engine, oracle = both(line(TX_DIC, dic=False), TX_DIC)
    assert engine and engine == oracle
    assert "do not average IFG 12" in engine[0]
    # a DUT that says it runs no DIC: the same line passes
    assert both(line(TX_DIC, dic=False), TX_DIC, dic=False) == ([], [])


def test_gaps_shorter_than_the_deficit_idle_count_allows_fail_both_alike():
    engine, oracle = both(line(TX_DIC, ifg=8), TX_DIC)
    assert engine and oracle
    same_words(engine, oracle)
    assert any(e.startswith("gap: the gap before DUT frame") for e in engine), engine


@pytest.mark.parametrize("bit", [3, 40])
def test_a_flipped_bit_fails_both_alike(bit):
    ln = line(TX_DIC)
    k = next(i for i, (h, _) in enumerate(ln) if i > 45 and h == 2)
    engine, oracle = both(flip(ln, k, bit), TX_DIC)
    assert engine and oracle
    same_words(engine, oracle)
    assert "corrupted on the DUT's line" in engine[0], engine


def test_aborts_judged_alike():
    # the aborted frame left out (an /E/ in its place): both pass
    assert both(line(TX_ABORT, skip=(2,)), TX_ABORT, aborts=(2,)) == ([], [])
    # the aborted frame received ok: both fail, in the same words
    engine, oracle = both(line(TX_ABORT), TX_ABORT, aborts=(2,))
    assert engine == oracle
    assert engine[0] == "frame 2, aborted (tuser), was received ok from the DUT's line"
    # a frame not aborted lost
    engine, oracle = both(line(TX_ABORT, skip=(2, 4)), TX_ABORT, aborts=(2,))
    assert engine == oracle and "5 sent, 4 received ok" in engine[0]


def test_a_frame_missing_fails_both_alike():
    engine, oracle = both(line(TX_DIC, skip=(5,)), TX_DIC)
    assert engine == oracle
    assert engine[0] == "frame 5 (65 octets) missing on the DUT's line"


def test_a_silent_line_says_why_first_then_as_the_oracle():
    ln = [(0, 0)] * 300
    engine, oracle = both(ln, TX_DIC)
    assert engine[0].startswith("no frame received from the DUT's line (300 blocks: 300 invalid "
                                "sync headers"), engine[0]
    assert engine[1:] == oracle
    # swapped sync headers: the engine names them
    swapped = [(3 - h, p) for h, p in line(TX_DIC)]
    engine, oracle = both(swapped, TX_DIC)
    assert "sync headers look swapped" in engine[0], engine[0]
    assert engine[1:] == oracle
    with pytest.raises(ValueError, match="no blocks"):
        _baser.conformance_tx_verdict(TX_DIC, [], [])
