"""The catalogue: each case names the clause it checks, builds its stimulus and says what
the standard demands beyond agreeing with the model (``expect``: status values in order).

The cases, their stimulus and their demands live in the engine (engine/src/conformance/),
where ``baser gen --suite`` and the C ABI's case replay take them too; this is their table
and stimulus through the bindings (``_baser.conformance_cases``,
``_baser.conformance_stimulus``)."""

from .. import _baser

LEAD = 200  # idle blocks before a case's stimulus: block lock (64 headers) with room
SETTLE = 300  # idle blocks after it
BER_WINDOW_BLOCKS = 19531  # the standard's 125 us BER timer in 10G blocks
RATES = ("10g", "25g")


def standard_ber_window(rate):
    """The standard's BER timer in blocks at ``rate``: 19531 (125 us) at "10g", 781250 (2 ms)
    at "25g" (the engine's; an unknown rate raises ``ValueError``)."""
    return _baser.conformance_ber_window(rate)


class Line:
    """A receive case's line: unscrambled ``blocks`` ``(header, payload)``, ``slips`` (block
    index -> bits inserted, > 0, or deleted there) and ``frames`` (per frame sent: dict of
    ``frame``, ``s_block``, ``s_lane``, ``t_block``, ``t_lane``)."""

    def __init__(self, blocks, slips, frames):
        self.blocks = blocks
        self.slips = dict(slips)
        self.frames = [dict(frame=f, s_block=sb, s_lane=sl, t_block=tb, t_lane=tl)
                       for f, sb, sl, tb, tl in frames]

    def line(self, state=None):
        """The scrambled line and its slips."""
        return _baser.scramble_blocks(self.blocks, state)[0], dict(self.slips)


class Case:
    def __init__(self, name, clause, title, kind, expect=None, needs=(), counters=True,
                 standard_ber_timer=False, rate=None, pattern=False):
        self.name = name
        self.clause = clause
        self.title = title
        self.kind = kind  # "rx" or "tx"
        self.expect = expect or {}
        self.needs = tuple(needs)
        self.counters = counters
        # the model's BER timer is the standard's: a DUT with another is skipped
        self.standard_ber_timer = standard_ber_timer
        # the one rate it applies at ("10g", "25g"), or every rate
        self.rates = (rate,) if rate else RATES
        # a test-pattern case: it drives the DUT's PRBS31 enable (:meth:`pattern_run`)
        self.pattern = pattern

    def skip(self, adapter):
        """Why it does not run on ``adapter``'s DUT (another rate's case, a BER timer its
        line is not placed for), or None."""
        return _baser.conformance_skip(self.name, max_frame_length=adapter.max_frame_length,
                                       ber_window_blocks=adapter.ber_window_blocks,
                                       rate=adapter.rate)

    def build(self, adapter):
        """The stimulus for ``adapter``'s DUT (its ``max_frame_length``, its
        ``ber_window_blocks``, its ``rate``, "10g" when it has none): a receive case's
        :class:`Line`, a transmit case's ``(frames, aborts)``, a test-pattern case's run (as
        :meth:`pattern_run`, not inverted)."""
        kind, s = _baser.conformance_stimulus(self.name, max_frame_length=adapter.max_frame_length,
                                              ber_window_blocks=adapter.ber_window_blocks,
                                              rate=getattr(adapter, "rate", "10g"))
        if kind == "rx":
            return Line(*s)
        if kind == "pattern":  # the not-inverted run: pattern_run() takes the adapter's
            return s
        frames, aborts = s
        return frames, set(aborts)

    def pattern_run(self, adapter):
        """A test-pattern case's run for ``adapter``'s DUT (its ``prbs31_inverted``): a dict
        of ``units`` (its serdes input as sent), ``enable`` (the clocks ``[on, off)`` its
        enable is high), ``window`` (the clocks judged), ``errors``, ``expected_errors``."""
        return _baser.conformance_pattern(self.name, inverted=adapter.prbs31_inverted)

    def receive_line(self):
        """A transmit case's line for the DUT's receiver, as sent (``(header, data)`` a clock
        from the run's first, the lead included; idles after it), or None: idles."""
        if self.kind != "tx" or self.pattern:
            return None
        return _baser.conformance_tx_receive(self.name)


CASES = [Case(**c) for c in _baser.conformance_cases()]


def cases_at(rate="10g"):
    """The catalogue at ``rate``, in the order it runs."""
    standard_ber_window(rate)  # an unknown rate raises
    return [c for c in CASES if rate in c.rates]
