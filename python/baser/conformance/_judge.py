"""Verdicts of transmit runs: the engine's (engine/src/conformance/judge/transmit.rs, through
``_baser.conformance_tx_verdict``), as the C ABI's replay gives it; a receive run's is the
engine's too (``_baser.conformance_verdict``). The Python these rules were first written in is
kept as their oracle in python/tests/conformance_tx_reference.py."""

from .. import _baser


def tx(obs, adapter, frames, aborts, receive=None, lead=200):
    """The DUT's line, bit exact frame by frame (``check --blocks``): every frame received ok
    and encoded as the model encodes it with its /S/ in the DUT's lane, no gap shorter than
    the deficit idle count allows, and while back to back the idles deleted minus inserted
    within 0..3 (the gaps average the IFG); without the deficit idle count (``adapter.tx_dic``
    False) no gap shorter than the IFG. With ``aborts``: the frames not aborted received ok,
    in order, and no aborted one received ok. With ``receive`` (the case's receive line, driven
    from clock 0; the line recorded from clock ``lead``): first the RS's reaction to the
    faults it carried (46.3.4: Remote Fault and no frame while Local Fault, Idle and no frame
    while Remote Fault, from 64 clocks after the model's RS raised them until they cleared).
    Returns the divergences, the first first."""
    return _baser.conformance_tx_verdict(
        [bytes(f) for f in frames], sorted(aborts), obs.tx_blocks, ifg=adapter.tx_ifg,
        dic=adapter.tx_dic, receive=receive, line_start=lead if receive else 0)
