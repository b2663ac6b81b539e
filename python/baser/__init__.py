"""baser: the golden model of the IEEE 802.3 Clause 49 10GBASE-R PCS and the 10G MAC.

The model from Python (the same Rust engine as the ``baser`` command):

    encode(frames, ...)            -> Encoded: XGMII words, 66-bit blocks, serial bytes
    decode(stream, kind=...)       -> dict: `baser decode --json`, plus the received frames
    check(expected, dut, kind=...) -> dict: `baser check --json`
    TxModel                        -> push a frame, take one 66-bit block per clock
    RxModel                        -> push one block / unit / serdes word per clock, get frames
                                      (RxFrame: named fields; indexing gives the first eight)
    Scoreboard                     -> expected frames vs the DUT's, judged as `baser check`

Drop-in cocotb models (imported lazily: this package imports without cocotb):

    from baser import BaseRSerdesSource, BaseRSerdesSink   # verilog-ethernet / taxi tb/baser.py
    from baser import XgmiiSource, XgmiiSink               # cocotbext-eth's, on the MAC model

Blocks are ``(header, payload)`` pairs: the sync header as a 2-bit integer whose bit 0 is the
first bit on the wire (2 = data, 1 = control), and the 64-bit payload, bit 0 first. XGMII
transfers are ``(ctrl, data)`` pairs, lane i in data bits 8i+7..8i (docs/python.md).
"""

import json
from typing import NamedTuple

from . import _baser
from ._baser import RxFrame, RxModel, Scoreboard, TxModel
from .files import read_b66, read_pcap, write_b66, write_pcap

__version__ = _baser.__version__
PROFILES = tuple(_baser.PROFILES)

__all__ = [
    "encode",
    "decode",
    "check",
    "Encoded",
    "TxModel",
    "RxModel",
    "RxFrame",
    "Scoreboard",
    "BaseRSerdesSource",
    "BaseRSerdesSink",
    "XgmiiSource",
    "XgmiiSink",
    "read_pcap",
    "write_pcap",
    "read_b66",
    "write_b66",
    "PROFILES",
]


class _Encoded(NamedTuple):
    """What :func:`encode` returns; index i of words, blocks and unscrambled is block i."""

    xgmii: list
    """XGMII transfers, ``(ctrl, data)``."""
    blocks: list
    """Scrambled 66-bit blocks (the line), ``(header, payload)``."""
    unscrambled: list
    """The encoder's blocks before the scrambler."""
    bits: bytes
    """The serial stream, bit 0 of byte 0 first (the last byte zero padded)."""
    starts: list
    """Per frame, ``(block, lane)`` of its ``/S/``."""


class Encoded(_Encoded):
    """What :func:`encode` returns; index i of words, blocks and unscrambled is block i. It
    unpacks as the five fields; ``fec`` is ``None`` or, with a FEC, a dict of ``codewords``
    (FEC blocks or codewords on the line), ``markers`` (RS-FEC marker codewords) and
    ``stalls`` (block times the PCS source was held for them)."""

    fec = None


def _frames(frames):
    return [bytes(f) for f in frames]


def encode(
    frames,
    *,
    profile="ieee",
    ifg=12,
    dic=True,
    dic_mode=None,
    pad=True,
    seed=None,
    idle_blocks=128,
    fcs_included=False,
    rate="10g",
    fec="none",
    rs_marker_period=1024,
):
    """Frames (bytes from DA to the end of the payload, no FCS) through the TX chain, as
    ``baser encode`` does: ``idle_blocks`` idles first, the MAC (preamble, pad, FCS, IFG with
    the deficit idle count), the PCS encoder and the scrambler, and at the end the gap owed
    and two idles. ``seed``: the scrambler state before the first block (58 bits); ``dic_mode``
    ``"strict"``, ``"reset-on-idle"`` or ``"off"`` overrides the profile's; ``fcs_included``:
    each frame ends with its FCS and is sent as it is. ``rate`` ``"10g"`` or ``"25g"``;
    ``fec`` ``"none"``, ``"fc"`` (Clause 74) or ``"rs"`` (Clause 108, 25G only; its marker
    every ``rs_marker_period`` codewords): ``bits`` is then the FEC's line, ``blocks`` the
    PCS's blocks above it (idles finish the last FEC block or codeword), and ``fec`` its
    counts."""
    *fields, counts = _baser.encode(
        _frames(frames),
        profile=profile,
        ifg=ifg,
        dic=dic,
        dic_mode=dic_mode,
        pad=pad,
        seed=seed,
        idle_blocks=idle_blocks,
        fcs_included=fcs_included,
        rate=rate,
        fec=fec,
        rs_marker_period=rs_marker_period,
    )
    e = Encoded(*fields)
    if counts is not None:
        e.fec = dict(zip(("codewords", "markers", "stalls"), counts))
    return e


def _kind(stream, kind):
    if kind is not None:
        return kind
    if isinstance(stream, (bytes, bytearray, memoryview)):
        return "bits"
    return "b66"


def _stream(stream, kind):
    if kind == "bits":
        return bytes(stream)
    try:
        return [(int(a), int(b)) for a, b in stream]
    except (TypeError, ValueError):
        what = "(ctrl, data)" if kind == "xgmii" else "(header, payload)"
        raise ValueError(f"a {kind} stream is a sequence of {what} pairs of ints") from None


def decode(
    stream,
    kind=None,
    *,
    profile="ieee",
    max_frame_length=1518,
    strict_start=False,
    max_events=20,
    offline=False,
    scrambled=True,
    scrambler_state=None,
    name="<stream>",
    rate="10g",
    fec="none",
    rs_marker_period=1024,
    ber_timer=None,
    fec_options=None,
):
    """A stream through the RX chain, as ``baser decode`` does.

    ``kind``: ``"bits"`` (bytes, any bit offset: block lock finds the boundary; ``offline``
    finds it first and decodes from the first whole block), ``"units"`` (66-bit
    ``(header, payload)`` clocks of a serdes, any bit offset), ``"b66"`` (blocks at known
    boundaries; ``scrambled`` and ``scrambler_state`` as the file's header lines, None =
    trained on the first block) or ``"xgmii"`` (``(ctrl, data)`` transfers). Default: bytes
    are ``"bits"``, anything else ``"b66"``.

    Returns the ``baser decode --json`` document (``input``, ``profile``, ``verdict``,
    ``pcs``, ``frames``) with ``received``: one dict per received frame (``index``,
    ``class``, ``len``, ``fcs_ok``, ``start``, ``gap_octets``, and ``data``: DA through FCS).

    ``rate`` (``"10g"``, ``"25g"``: the BER monitor's 16 in 125 us or 97 in 2 ms) and ``fec``
    (``"fc"``, ``"rs"``, with ``rs_marker_period``): a ``"bits"`` stream is the FEC's line,
    locked from any bit offset (RS-FEC on its first marker); the document then has ``fec``
    (lock, codewords, corrected and uncorrected ones, symbols: docs/fec.md). ``offline``
    reads a Clause 74 line as ``baser decode --offline`` does (its boundary found first).
    ``fec_options``: the FEC's receive modes, a dict of ``"rs_bypass_correction"`` (1.200.0),
    ``"rs_bypass_indication"`` (1.200.1) or ``"fc_error_indication"`` (Clause 74, 1.171.1) to
    bools (all off by default; a mode the FEC lacks is a ``ValueError`` naming it).

    ``ber_timer``: the BER monitor's timer where a test bench shortens it, as the RTL's
    parameter does (``"100blocks"``, ``"640ns"``, ``"125us"``; ``baser check --ber-timer``);
    None = the standard's (125 us at 10G, 2 ms at 25G).
    """
    kind = _kind(stream, kind)
    doc, data = _baser.decode(
        _stream(stream, kind),
        kind,
        profile=profile,
        max_frame_length=max_frame_length,
        strict_start=strict_start,
        max_events=max_events,
        offline=offline,
        scrambled=scrambled,
        scrambler_state=scrambler_state,
        name=name,
        rate=rate,
        fec=fec,
        rs_marker_period=rs_marker_period,
        ber_timer=ber_timer,
        fec_options=fec_options,
    )
    doc = json.loads(doc)
    for f, d in zip(doc["received"], data):
        f["data"] = d
    return doc


def check(
    expected,
    dut,
    kind=None,
    *,
    profile="ieee",
    fcs_included=False,
    strict_start=False,
    max_frame_length=None,
    receiver_view=False,
    blocks=False,
    ifg=12,
    max_report=10,
    scrambled=True,
    scrambler_state=None,
    expected_name="<expected>",
    dut_name="<dut>",
    rate="10g",
    fec="none",
    rs_marker_period=1024,
    ber_timer=None,
    fec_options=None,
):
    """Expected frames (DA to the end of the payload, no FCS unless ``fcs_included``) against
    what a DUT produced, as ``baser check --frames`` does; returns its ``--json`` document as
    a dict (``verdict`` is ``"pass"`` or ``"fail"``). ``dut`` and ``kind`` as in
    :func:`decode`; a serial stream is read offline unless ``receiver_view``; ``blocks``
    also compares the DUT's blocks with the model's encoding, bit for bit (``--blocks``).
    ``rate``, ``fec``, ``rs_marker_period``, ``fec_options`` and ``ber_timer`` as in
    :func:`decode` (the document then has ``fec``; a Clause 74 line is read offline unless
    ``receiver_view``)."""
    kind = _kind(dut, kind)
    doc = _baser.check(
        _frames(expected),
        _stream(dut, kind),
        kind,
        profile=profile,
        fcs_included=fcs_included,
        strict_start=strict_start,
        max_frame_length=max_frame_length,
        receiver_view=receiver_view,
        blocks=blocks,
        ifg=ifg,
        max_report=max_report,
        scrambled=scrambled,
        scrambler_state=scrambler_state,
        expected_name=expected_name,
        dut_name=dut_name,
        rate=rate,
        fec=fec,
        rs_marker_period=rs_marker_period,
        ber_timer=ber_timer,
        fec_options=fec_options,
    )
    return json.loads(doc)


def __getattr__(name):
    # The cocotb models import cocotb: only when asked for, so that `import baser` works
    # outside a simulator (pytest collects test modules before any simulator runs).
    if name in ("BaseRSerdesSource", "BaseRSerdesSink"):
        from . import serdes

        return getattr(serdes, name)
    if name in ("XgmiiSource", "XgmiiSink"):
        from . import xgmii

        return getattr(xgmii, name)
    raise AttributeError(f"module 'baser' has no attribute {name!r}")
