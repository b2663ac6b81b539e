"""The line a receive run sends, scrambled and cut into serdes clocks: the model's scrambler
(``scramble_blocks``) and a cursor that reads the line 66 bits a clock, honouring the line's
own slips and a receiver's bit slip requests. A case's blocks come from the engine
(``_cases.Case.build``).
"""

from .. import _baser

IDLE = _baser.encode_word(0x0707070707070707, 0xFF)  # a control block of eight /I/


def scramble(blocks, state=None):
    """Scrambles ``(header, payload)`` blocks (49.2.6) from ``state`` (None: all ones), with
    the model's scrambler; returns the line blocks and the state after them."""
    return _baser.scramble_blocks(blocks, state)


class Cursor:
    """Reads the line as 66-bit serdes clocks: each :meth:`take` gives the next ``(header,
    data)``; ``slip=True`` first drops one bit, as a serdes does on a receiver's bit slip
    request. The line's own slips (the engine's ``Line::slip``) are applied as their block is
    reached, so two cursors over one line see the same bits."""

    def __init__(self, blocks, slips):
        self.blocks = blocks
        self.slips = slips
        self.i = 0
        self.bits = 0
        self.n = 0

    def _next_block(self):
        slip = self.slips.get(self.i, 0)
        if slip > 0:  # bits inserted: alternating ones and zeros
            self.bits |= (0x2AAAAAAAAAAAAAAAAA & ((1 << slip) - 1)) << self.n
            self.n += slip
        header, payload = self.blocks[self.i]
        self.i += 1
        self.bits |= (header | (payload << 2)) << self.n
        self.n += 66
        if slip < 0:  # bits deleted
            self.bits >>= -slip
            self.n += slip

    def left(self):
        """Whole blocks not yet read."""
        return len(self.blocks) - self.i

    def take(self, slip=False):
        while self.n < 67:
            self._next_block()
        if slip:
            self.bits >>= 1
            self.n -= 1
        unit = self.bits & ((1 << 66) - 1)
        self.bits >>= 66
        self.n -= 66
        return unit & 3, unit >> 2
