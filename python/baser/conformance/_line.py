"""The line a receive run sends, scrambled and cut into serdes clocks: the model's scrambler
(``scramble_blocks``) and the engine's cursor (``LineCursor``) that reads the line 66 bits a
clock, honouring the line's own slips and a receiver's bit slip requests. A case's blocks come
from the engine (``_cases.Case.build``).
"""

from .. import _baser

IDLE = _baser.encode_word(0x0707070707070707, 0xFF)  # a control block of eight /I/


def scramble(blocks, state=None):
    """Scrambles ``(header, payload)`` blocks (49.2.6) from ``state`` (None: all ones), with
    the model's scrambler; returns the line blocks and the state after them."""
    return _baser.scramble_blocks(blocks, state)


# Reads the line as 66-bit serdes clocks: ``take(slip=False)`` gives the next ``(header,
# data)``, ``slip=True`` first drops one bit (a receiver's bit slip request); the line's own
# slips apply as their block is reached, so two cursors over one line see the same bits.
Cursor = _baser.LineCursor
