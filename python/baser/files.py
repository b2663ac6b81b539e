"""Readers and writers for the files the ``baser`` command reads (docs/formats.md): pcap and
pcapng frames and ``.b66`` block dumps. They are the command's own readers (the ``baser-files``
crate), so a file reads here exactly as ``baser`` reads it, and an error names the file and
the line or byte (``ValueError``; ``OSError`` when the file cannot be opened)."""

from ._baser import read_b66, read_pcap, write_b66, write_pcap

__all__ = ["read_pcap", "write_pcap", "read_b66", "write_b66"]
