"""Verdicts: what a DUT said against what the model received (receive runs) or what the
model would have sent (transmit runs), worded as the first divergence."""

from .. import check, decode


def _first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"octet {i}: model 0x{x:02x}, DUT 0x{y:02x}"
    return f"length: model {len(a)} octets, DUT {len(b)}"


def _octets(f, adapter):
    """A model's frame as the DUT delivers it (FCS stripped or not)."""
    return bytes(f.data[:-4]) if adapter.rx_fcs_stripped else bytes(f.data)


def frames(obs, adapter):
    """Pairs the model's received frames with the DUT's, in order. A frame the model
    received good must come out equal with its bad flag low; a frame the model classes bad
    (fcs_error, runt, too_long, error_character, bad_preamble, fragment) may be dropped or
    delivered with the flag high, never with it low; nothing else may come out."""
    out = []
    if adapter.rx_axis is None:  # a PHY-only top: no frames to judge
        return out
    dut = obs.dut_frames
    j = 0
    for k, f in enumerate(obs.model_frames):
        want = _octets(f, adapter)
        nxt = dut[j] if j < len(dut) else None
        what = f"frame {k} ({len(f.data)} octets with FCS, /S/ in block {f.start_block} lane {f.start_lane})"
        if f.class_ == "ok":
            if nxt is None:
                out.append(f"{what} is ok in the model's receiver; the DUT delivered nothing")
                continue
            if nxt[0] != want and any(nxt[0] == _octets(g, adapter) for g in obs.model_frames[k + 1:]):
                # the DUT's next frame is a later one of the model's: this one is missing
                out.append(f"{what} is ok in the model's receiver; the DUT delivered nothing "
                           f"(its next frame is a later one)")
                continue
            if nxt[0] != want:  # frames the model did not receive before it: extra
                m = next((m for m in range(j + 1, len(dut)) if dut[m][0] == want), None)
                if m is not None:
                    out += [_extra(d) for d in dut[j:m]]
                    j, nxt = m, dut[m]
            j += 1
            if nxt[0] != want:
                out.append(f"{what} is ok in the model's receiver; the DUT's differs at {_first_diff(want, nxt[0])}")
            elif nxt[1]:
                out.append(f"{what} is ok in the model's receiver; the DUT raised its bad-frame flag (tuser)")
        elif nxt is not None and nxt[1]:
            j += 1
        elif nxt is not None and nxt[0] == want:
            j += 1
            out.append(f"{what} is {f.class_} in the model's receiver; the DUT delivered it with its bad-frame flag low")
    return out + [_extra(d) for d in dut[j:]]


def _extra(frame):
    octets, bad, clock = frame
    return (f"the DUT delivered a frame the model's receiver did not ({len(octets)} octets, "
            f"flag {'high' if bad else 'low'}, clock {clock})")


def pulses(obs, adapter):
    """Each pulse fires once per frame of its kind in the model's receiver."""
    out = []
    bad = sum(1 for f in obs.model_frames if f.class_ != "ok")
    fcs = sum(1 for f in obs.model_frames if f.class_ == "fcs_error")
    for role, want in (("bad_frame", bad), ("bad_fcs", fcs)):
        if role in adapter.pulses:
            got = obs.pulses.get(role, 0)
            if got != want:
                out.append(f"{role} pulsed {got} times; the model's receiver had {want} such frames")
    return out


def counters(obs, adapter):
    """Counters move as the model's: errored blocks (entries to RX_E, 3.33), frames good and
    bad, FCS errors."""
    out = []
    st = obs.model_final
    want = {
        "errored_blocks": st["errored_blocks"],
        "frames_good": sum(1 for f in obs.model_frames if f.class_ == "ok"),
        "frames_bad": sum(1 for f in obs.model_frames if f.class_ != "ok"),
        "fcs_errors": sum(1 for f in obs.model_frames if f.class_ == "fcs_error"),
    }
    for role, (before, after) in sorted(obs.counters.items()):
        moved = (after - before) & 0xFFFFFFFF
        if moved != want[role]:
            why = f" (its last: {st['last_error'][1]})" if role == "errored_blocks" and st["last_error"] else ""
            out.append(f"counter {role} moved by {moved}; the model's by {want[role]}{why}")
    return out


def _values(trace, since=0):
    """The values a trace went through from clock ``since`` on (its value then first)."""
    out = [v for c, v in trace if c <= since][-1:]
    return out + [v for c, v in trace if c > since]


def _words(values):
    return " -> ".join("high" if v else "low" for v in values)


def status(obs, adapter, expect, since):
    """Each status level goes through the same values as the model's (block lock, hi_ber,
    link status, local and remote fault), and both through what the case demands
    (``expect``: role -> the values the standard demands from clock ``since`` on, where
    the stimulus starts)."""
    out = []
    for role, trace in sorted(obs.status.items()):
        model = _values(obs.model_status.get(role, []))
        dut = _values(trace)
        if dut != model:
            out.append(f"{role}: the DUT went {_words(dut)}; the model's receiver {_words(model)}")
    for role, want in sorted(expect.items()):
        model = _values(obs.model_status.get(role, []), since)
        if model != list(want):
            out.append(f"{role}: the model itself went {_words(model)}, the case demands {_words(want)}")
    return out


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
