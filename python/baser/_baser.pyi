"""Types of ``baser._baser``, the Rust extension (python/src): the engine's chains, judge,
files and streaming models. docs/python.md describes each."""

import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

__version__: str
PROFILES: List[str]

Pair = Tuple[int, int]
"""A block ``(header, payload)`` or an XGMII transfer ``(ctrl, data)``."""

Event = Tuple[int, int, int]
"""A frame mark of a TX model's block: ``(kind, id, lane)``; kind 0 = ``/S/``, 1 = SFD,
2 = ``/T/`` (the frame is sent), 3 = the first octet after the SFD."""

_Path = Union[str, "os.PathLike[str]"]

def encode(
    frames: Sequence[bytes],
    *,
    profile: str = "ieee",
    ifg: int = 12,
    dic: bool = True,
    dic_mode: Optional[str] = None,
    pad: bool = True,
    seed: Optional[int] = None,
    idle_blocks: int = 128,
    fcs_included: bool = False,
    rate: str = "10g",
    fec: str = "none",
    rs_marker_period: int = 1024,
) -> Tuple[
    List[Pair],
    List[Pair],
    List[Pair],
    bytes,
    List[Tuple[int, int]],
    Optional[Tuple[int, int, int]],
]: ...
def decode(
    stream: Union[bytes, Sequence[Pair]],
    kind: str,
    *,
    profile: str = "ieee",
    max_frame_length: int = 1518,
    strict_start: bool = False,
    max_events: int = 20,
    offline: bool = False,
    scrambled: bool = True,
    scrambler_state: Optional[int] = None,
    name: str = "<stream>",
    rate: str = "10g",
    fec: str = "none",
    rs_marker_period: int = 1024,
    ber_timer: Optional[str] = None,
    fec_options: Optional[Dict[str, bool]] = None,
) -> Tuple[str, List[bytes]]: ...
def check(
    expected: Sequence[bytes],
    dut: Union[bytes, Sequence[Pair]],
    kind: str,
    *,
    profile: str = "ieee",
    fcs_included: bool = False,
    strict_start: bool = False,
    max_frame_length: Optional[int] = None,
    receiver_view: bool = False,
    blocks: bool = False,
    ifg: int = 12,
    max_report: int = 10,
    scrambled: bool = True,
    scrambler_state: Optional[int] = None,
    expected_name: str = "<expected>",
    dut_name: str = "<dut>",
    rate: str = "10g",
    fec: str = "none",
    rs_marker_period: int = 1024,
    ber_timer: Optional[str] = None,
    fec_options: Optional[Dict[str, bool]] = None,
) -> str: ...
def read_pcap(path: _Path, fcs_included: bool = False) -> List[bytes]: ...
def write_pcap(path: _Path, frames: Sequence[bytes]) -> None: ...
def read_b66(path: _Path) -> Tuple[List[Pair], bool, Optional[int]]: ...
def write_b66(
    path: _Path,
    blocks: Sequence[Pair],
    scrambled: bool = True,
    scrambler_state: Optional[int] = None,
) -> None: ...
def encode_word(data: int, ctrl: int) -> Pair:
    """The block pcs-core's stateless encoder makes of one XGMII transfer (ENCODE(tx_raw),
    Figure 49-7; a transfer of class E gets /E/ in its lanes without a code, or EBLOCK_T)."""
def decode_block(header: int, payload: int) -> Tuple[int, int]:
    """The transfer ``(data, ctrl)`` pcs-core's stateless decoder makes of one block."""
def control_block(codes: Sequence[int]) -> Pair:
    """The 0x1E block of eight 7-bit control codes, lane 0 first, valid ones or not."""
def scramble_blocks(blocks: Sequence[Pair], state: Optional[int] = None) -> Tuple[List[Pair], int]:
    """The blocks scrambled from ``state`` (58 bits; None: all ones), payloads only; and the
    state after them."""
def conformance_cases() -> List[Dict[str, Any]]:
    """The conformance catalogue (engine/src/conformance/), in the order it runs: per case
    ``name``, ``clause``, ``title``, ``kind`` ("rx"/"tx"), ``expect``, ``needs``,
    ``counters``, ``standard_ber_timer``, ``rate`` (the one rate it applies at, or None)."""
def conformance_ber_window(rate: str) -> int:
    """The standard's BER timer in blocks at ``rate``: 19531 at "10g", 781250 at "25g"."""
def conformance_coverage(
    names: Sequence[str], *, max_frame_length: int = 1518,
    ber_window_blocks: Optional[int] = None, rate: str = "10g"
) -> str:
    """The engine's functional coverage (``baser coverage``'s bins) of what the cases drove,
    merged, as JSON: ``runs``, ``groups`` (``name``, ``what``, ``bins``: ``name``, ``hits``)."""
def conformance_xgmii(
    name: str, *, max_frame_length: int = 1518, ber_window_blocks: Optional[int] = None,
    rate: str = "10g"
) -> List[Tuple[int, int]]:
    """A receive case's line as the model's PCS receiver hands it to its RS: one ``(data,
    ctrl)`` XGMII transfer a block (Local Fault before block lock), for a MAC-only DUT."""
def conformance_line_of_xgmii(words: Sequence[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The line the model's PCS transmitter makes of XGMII transfers ``(data, ctrl)``, as
    ``(header, payload)`` blocks."""
def conformance_skip(
    name: str, *, max_frame_length: int = 1518, ber_window_blocks: Optional[int] = None,
    rate: str = "10g"
) -> Optional[str]:
    """Why a case does not run on a DUT of these settings, or None (bad settings raise
    ``ValueError``)."""
def conformance_stimulus(
    name: str, *, max_frame_length: int = 1518, ber_window_blocks: Optional[int] = None,
    rate: str = "10g"
) -> Tuple[str, Any]:
    """A case's stimulus: ``("rx", (blocks, slips, frames))`` (unscrambled blocks; slips as
    ``(block index, bits)``; frames as ``(octets, s_block, s_lane, t_block, t_lane)``) or
    ``("tx", (frames, aborts))``."""
def conformance_verdict(
    name: str,
    said: Tuple[List[Tuple[bytes, bool, int]], Dict[str, int], Dict[str, List[Tuple[int, bool]]],
                Dict[str, Tuple[int, int]]],
    *,
    max_frame_length: int = 1518,
    ber_window_blocks: Optional[int] = None,
    has_frames: bool = True,
    fcs_stripped: bool = True,
    pulse_roles: Sequence[str] = (),
    rate: str = "10g",
) -> List[str]:
    """A receive case's verdict (the engine's): what the DUT said (frames ``(octets, bad,
    clock)``, pulses, status level changes, counters ``(before, after)``) against the case's
    expected outcome; the divergences, the first first."""
def conformance_tx_verdict(
    frames: Sequence[bytes], aborts: Sequence[int], line: Sequence[Pair], *, ifg: int = 12,
    dic: bool = True, receive: Optional[Sequence[Pair]] = None, line_start: int = 0
) -> List[str]:
    """A transmit case's verdict (the engine's): the DUT's line (``(header, data)`` a clock,
    scrambled) against the frames fed (those at ``aborts`` with the abort bit), its IFG and
    deficit idle count; with ``receive`` (the case's receive line, as
    :func:`conformance_tx_receive` gives it, from the run's clock 0; ``line[k]`` at clock
    ``line_start + k``) the RS's reaction to the faults it carried is judged first. The
    divergences, the first first."""
def conformance_tx_receive(name: str) -> Optional[List[Pair]]:
    """A transmit case's line for the DUT's receiver as sent (``(header, data)`` a clock,
    scrambled from the all-ones state, from the run's first clock, the lead included), or
    None: idles throughout. A receive case raises ``ValueError``."""

def conformance_pattern(name: str, *, inverted: bool = False) -> Dict[str, Any]:
    """A test-pattern case's run (``rx-prbs31``, ``tx-prbs31``) for a DUT whose PRBS31 is
    ``inverted`` or not: ``units`` (its serdes input as sent, ``(header, data)`` a clock),
    ``enable`` (the clocks ``[on, off)`` its test-pattern enable is high), ``window``
    (``rx-prbs31``: the clocks its error counter is summed over; ``tx-prbs31``: the clocks
    of its line judged), ``errors`` (``(clock, bit)`` flipped), ``expected_errors``,
    ``inverted``."""

def conformance_pattern_verdict(name: str, *, inverted: bool = False,
                                counted: Optional[int] = None,
                                line: Optional[List[Pair]] = None) -> List[str]:
    """A test-pattern case's divergences: ``rx-prbs31`` with ``counted`` (what the DUT's
    error counter moved by over the window), ``tx-prbs31`` with ``line`` (its serdes output,
    ``(header, data)`` a clock from the run's first)."""

class LineCursor:
    """A line read as 66-bit serdes clocks (the engine's cursor): the line's own ``slips``
    (block index -> bits inserted, > 0, or deleted) apply as their block is reached."""

    def __init__(self, blocks: Sequence[Pair], slips: Dict[int, int]) -> None: ...
    def left(self) -> int:
        """Whole blocks not yet read."""
    def take(self, slip: bool = False) -> Pair:
        """The next 66 bits as ``(header, data)``; ``slip``: one bit dropped first."""

class TxModel:
    """The TX chain, one block per clock (the engine's test-bench transmitter)."""

    def __init__(
        self,
        *,
        profile: str = "ieee",
        ifg: int = 12,
        dic: bool = True,
        dic_mode: Optional[str] = None,
        pad: bool = True,
        seed: Optional[int] = None,
        scrambled: bool = True,
        reverse: bool = False,
        lane4_starts: bool = False,
        inject: Sequence[str] = ...,
        replication: int = 0,
        rate: str = "10g",
        fec: str = "none",
        rs_marker_period: int = 1024,
    ) -> None:
        """With ``fec`` ``"fc"`` or ``"rs"``: each :meth:`next` is 66 bits of the FEC's line."""
    def configure(
        self,
        *,
        ifg: int = 12,
        dic: bool = True,
        dic_mode: Optional[str] = None,
        lane4_starts: bool = False,
        replication: int = 0,
    ) -> None:
        """New settings, taken when no frame is waiting or under way."""
    @property
    def replication(self) -> int: ...
    def restart(self) -> List[int]:
        """The MAC starts over (a reset); returns the ids of the frames dropped."""
    def inject(self, spec: str) -> None: ...
    def set_ordered_set(self, value: Optional[int] = None, signal: bool = False) -> None: ...
    @property
    def flipped(self) -> List[int]: ...
    def push(self, frame: bytes, fcs: Optional[bytes] = None) -> int: ...
    def next(self) -> Tuple[int, int, Optional[List[Event]]]:
        """The next block: ``(header, payload, events)``."""
    def xgmii(self) -> Tuple[int, int, Optional[List[Event]]]:
        """The next transfer: ``(data, ctrl, events)``."""
    def drop_unstarted(self) -> List[int]: ...
    @property
    def blocks(self) -> int: ...
    @property
    def pending(self) -> int: ...
    @property
    def scrambler_state(self) -> int: ...
    @property
    def unstarted(self) -> int: ...
    @property
    def rate(self) -> str: ...
    @property
    def fec(self) -> Optional[dict]:
        """``kind``, ``codewords``, ``blocks``, ``held``; ``None`` without a FEC."""
    bit_offset: int

class RxFrame:
    """A received frame; indexing and unpacking give the first eight fields."""

    data: bytes
    class_: str
    fcs_ok: bool
    start_block: int
    start_lane: int
    start_clock: Optional[int]
    data_clock: Optional[int]
    end_clock: Optional[int]
    sfd_clock: Optional[int]
    sfd_lane: Optional[int]
    data_lane: Optional[int]
    end_lane: Optional[int]
    link_down: bool
    def __len__(self) -> int: ...
    def __getitem__(self, i: Union[int, slice]) -> object: ...
    def __iter__(self) -> Iterator[object]: ...

class RxModel:
    """The RX chain, one clock at a time (the engine's test-bench receiver on the live RX
    model the C ABI runs)."""

    def __init__(
        self,
        *,
        input: str = "units",
        profile: str = "ieee",
        max_frame_length: int = 16384,
        scrambled: bool = True,
        scrambler_state: Optional[int] = None,
        strict_start: bool = False,
        max_events: int = 20,
        view: str = "receiver",
        rate: str = "10g",
        fec: str = "none",
        rs_marker_period: int = 1024,
        ber_timer: Optional[str] = None,
        fec_options: Optional[Dict[str, bool]] = None,
    ) -> None: ...
    def push(self, header: int, payload: int) -> Optional[List[RxFrame]]: ...
    def push_word(self, word: int) -> Optional[List[RxFrame]]: ...
    def push_xgmii(self, data: int, ctrl: int) -> Optional[List[RxFrame]]: ...
    replication: int
    @property
    def clocks(self) -> int: ...
    @property
    def aligned(self) -> bool: ...
    def take_ordered_set(self) -> Optional[Tuple[int, bool]]: ...
    @property
    def ordered_set_runs(self) -> Tuple[int, int]: ...
    @property
    def status(self) -> dict: ...
    @property
    def fec(self) -> Optional[dict]:
        """The ``fec`` object of ``baser decode --json``; ``None`` without a FEC."""
    def finish(self) -> Tuple[str, Optional[List[RxFrame]]]: ...

class Scoreboard:
    """Expected frames against the frames a DUT delivered, judged as ``baser check``."""

    def __init__(
        self, *, profile: str = "ieee", max_frame_length: int = 1518, name: str = "scoreboard"
    ) -> None: ...
    def expect(self, frame: bytes) -> int: ...
    def push(self, frame: bytes, fcs_included: bool = True) -> List[str]: ...
    @property
    def divergences(self) -> int: ...
    @property
    def first(self) -> Optional[str]: ...
    def finish(self) -> str: ...
    def check(self) -> str: ...
