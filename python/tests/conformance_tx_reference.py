"""The Python the conformance catalogue's transmit verdict was first written in (it was
``baser/conformance/_judge.py``: ``tx_frames`` and ``tx_gaps``), kept as the oracle of the
engine's (engine/src/conformance/judge/transmit.rs, ``_baser.conformance_tx_verdict``):
test_conformance_tx.py judges correct and faulty lines both ways and compares the verdicts.
Unchanged but for its imports and ``verdict``, which runs both as ``run`` did."""

from baser import check, decode

def tx_frames(obs, adapter, frames, aborts):
    """The DUT's line, bit exact frame by frame (``check --blocks``): every frame received ok
    and encoded as the model encodes it with its /S/ in the DUT's lane, no gap shorter than
    the deficit idle count allows. With ``aborts``: the frames not aborted received ok, in
    order, and no aborted one received ok."""
    out = []
    got = decode(obs.tx_blocks, kind="b66")["received"]
    if aborts:
        ok = [bytes(r["data"][:-4]) for r in got if r["class"] == "ok"]
        keep = [bytes(f).ljust(60, b"\0") for i, f in enumerate(frames) if i not in aborts]
        for i in sorted(aborts):
            if bytes(frames[i]).ljust(60, b"\0") in ok:
                out.append(f"frame {i}, aborted (tuser), was received ok from the DUT's line")
        if ok != keep:
            out.append(f"the frames not aborted: {len(keep)} sent, {len(ok)} received ok from "
                       f"the DUT's line, or not in order")
        return out, got
    doc = check(list(frames), obs.tx_blocks, kind="b66", blocks=True, ifg=adapter.tx_ifg)
    for fr in doc["frames"]:
        if fr["status"] != "matched":
            extra = fr.get("first_difference") or fr.get("class") or ""
            out.append(f"frame {fr['expected_index']} ({fr['length']} octets) {fr['status']} "
                       f"on the DUT's line {extra}".strip())
    blocks = doc.get("blocks") or {}
    if blocks.get("first"):
        out.append(f"line blocks: {blocks['first']}")
    gaps = blocks.get("gaps") or {}
    if gaps.get("first"):
        out.append(f"gap: {gaps['first']}")
    return out, got


def tx_gaps(received, adapter, frames):
    """While the DUT sends back to back (gaps up to IFG + 3), the idles it deleted minus those
    it inserted (IFG - gap, summed) stay within a range of 3 however the count started
    (46.3.1.4: the deficit idle count is bounded 0..3), so the gaps average the IFG; without
    the deficit idle count no gap is shorter than the IFG."""
    ifg = adapter.tx_ifg
    out = []
    deficit = low = high = 0
    for i, r in enumerate(received[1:], 1):
        gap = r["gap_octets"]
        if gap is None or gap > ifg + 3:
            deficit = low = high = 0  # idle between: the count may start afresh
            continue
        if not adapter.tx_dic and gap < ifg:
            out.append(f"gap before frame {i}: {gap} octets, shorter than the IFG {ifg} with the deficit idle count off")
            break
        deficit += ifg - gap
        low, high = min(low, deficit), max(high, deficit)
        if adapter.tx_dic and high - low > 3:
            out.append(
                f"gap before frame {i}: {gap} octets; the idles deleted minus inserted since the "
                f"run began went from {low} to {high}, more than a deficit idle count of 0..3 "
                f"allows (46.3.1.4): the gaps do not average IFG {ifg}"
            )
            break
    return out


def verdict(tx_blocks, frames, aborts, ifg=12, dic=True):
    """Both rules on a DUT's line, as ``baser.conformance.run`` applied them."""

    class Obs:
        pass

    class Adapter:
        tx_ifg = ifg
        tx_dic = dic

    obs = Obs()
    obs.tx_blocks = tx_blocks
    div, received = tx_frames(obs, Adapter, frames, set(aborts))
    if not aborts:
        div += tx_gaps(received, Adapter, frames)
    return div
