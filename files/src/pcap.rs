//! Frames in pcap and pcapng files (LINKTYPE_ETHERNET). A record is one frame from the
//! destination MAC to the end of the payload, without FCS, unless the capture includes it
//! (`--fcs-included`, or pcapng's `if_fcslen` = 4), in which case it is split off.

use super::InputError;
use pcap_file::pcap::{PcapHeader, PcapReader, PcapWriter};
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block as NgBlock, PcapNgReader};
use pcap_file::{DataLink, PcapError, TsResolution};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One frame read from a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// 0-based record number among the frames of the file.
    pub index: u64,
    /// Destination MAC to the end of the payload.
    pub data: Vec<u8>,
    /// The FCS the capture carried, if it included one.
    pub fcs: Option<[u8; 4]>,
}

/// The reader after the magic number was peeked: the four bytes, then the rest.
type Src<R> = std::io::Chain<std::io::Cursor<[u8; 4]>, R>;

enum Inner<R: Read> {
    Pcap(PcapReader<Src<R>>),
    PcapNg(PcapNgReader<Src<R>>),
}

/// Streams the frames of a pcap or pcapng file.
pub struct FrameReader<R: Read> {
    inner: Inner<R>,
    path: PathBuf,
    fcs_included: bool,
    /// pcapng: per interface, whether `if_fcslen` says 4.
    ng_fcs: Vec<bool>,
    /// The last record's octets when the reader cannot lend them (pcapng's lends them only
    /// inside its block loop).
    owned: Vec<u8>,
    snaplen: u32,
    offset: u64,
    index: u64,
    failed: bool,
}

/// Says whether the first four bytes are a pcap (false) or pcapng (true) magic number.
fn kind(magic: [u8; 4]) -> Option<bool> {
    match u32::from_le_bytes(magic) {
        0xa1b2_c3d4 | 0xd4c3_b2a1 | 0xa1b2_3c4d | 0x4d3c_b2a1 => Some(false),
        0x0a0d_0d0a => Some(true),
        _ => None,
    }
}

fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IncompleteBuffer => "the file ends inside a record (truncated capture)".into(),
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends inside a record (truncated capture)".into()
        }
        other => other.to_string(),
    }
}

impl FrameReader<BufReader<std::fs::File>> {
    /// Opens a capture file.
    ///
    /// # Errors
    /// The file cannot be read, has no pcap/pcapng magic, or a link type other than Ethernet.
    pub fn open(path: &Path, fcs_included: bool) -> Result<Self, InputError> {
        let file = std::fs::File::open(path).map_err(|e| InputError::io(path, &e))?;
        Self::new(BufReader::with_capacity(1 << 16, file), path, fcs_included)
    }
}

impl<R: Read> FrameReader<R> {
    /// A reader over `inner`, which came from `path`.
    ///
    /// # Errors
    /// As [`FrameReader::open`].
    pub fn new(mut inner: R, path: &Path, fcs_included: bool) -> Result<Self, InputError> {
        let mut magic = [0u8; 4];
        let got = read_up_to(&mut inner, &mut magic).map_err(|e| InputError::io(path, &e))?;
        if got == 0 {
            return Err(InputError::file(
                path,
                "empty file: expected a pcap or pcapng capture",
            ));
        }
        let hex: String = magic.iter().take(got).map(|b| format!("{b:02x}")).collect();
        let is_ng = match (got, kind(magic)) {
            (4, Some(ng)) => ng,
            _ => {
                return Err(InputError::byte(
                    path,
                    0,
                    format!("not a pcap or pcapng file: magic {hex} (expected d4c3b2a1 or 4d3cb2a1 for pcap, 0a0d0d0a for pcapng)"),
                ))
            }
        };
        let src = std::io::Cursor::new(magic).chain(inner);
        let bad =
            |e: PcapError| InputError::byte(path, 0, format!("bad file header: {}", describe(&e)));
        let (inner, snaplen) = if is_ng {
            (Inner::PcapNg(PcapNgReader::new(src).map_err(bad)?), 0)
        } else {
            let r = PcapReader::new(src).map_err(bad)?;
            let h = r.header();
            if h.datalink != DataLink::ETHERNET {
                return Err(InputError::byte(
                    path,
                    20,
                    format!("link type {:?}: expected Ethernet (1)", h.datalink),
                ));
            }
            (Inner::Pcap(r), h.snaplen)
        };
        Ok(Self {
            inner,
            path: path.to_path_buf(),
            fcs_included,
            ng_fcs: Vec::new(),
            owned: Vec::new(),
            snaplen,
            offset: 24,
            index: 0,
            failed: false,
        })
    }

    /// The next frame, borrowed from the reader's buffer (no copy, no allocation); the
    /// iterator gives owned [`Frame`]s.
    pub fn next_ref(&mut self) -> Option<Result<FrameRef<'_>, InputError>> {
        if self.failed {
            return None;
        }
        match self.inner {
            Inner::Pcap(_) => self.next_pcap(),
            Inner::PcapNg(_) => self.next_ng(),
        }
    }

    fn next_pcap(&mut self) -> Option<Result<FrameRef<'_>, InputError>> {
        let Self {
            inner: Inner::Pcap(r),
            path,
            offset,
            index,
            snaplen,
            fcs_included,
            failed,
            owned,
            ..
        } = self
        else {
            return None;
        };
        let mut err = |message: String| {
            *failed = true;
            InputError::byte(path, *offset, message)
        };
        let raw = match r.next_raw_packet()? {
            Ok(raw) => raw,
            Err(e) => return Some(Err(err(format!("record {index}: {}", describe(&e))))),
        };
        let (incl, orig) = (raw.incl_len, raw.orig_len);
        if incl > *snaplen {
            return Some(Err(err(format!(
                "record {index}: {incl} octets captured, larger than the file's snaplen {snaplen}"
            ))));
        }
        if incl < orig {
            return Some(Err(err(format!(
                "record {index}: only {incl} of {orig} octets captured (snaplen cut the frame); capture with a larger snaplen"
            ))));
        }
        let data: &[u8] = match raw.data {
            std::borrow::Cow::Borrowed(d) => d,
            std::borrow::Cow::Owned(v) => {
                *owned = v;
                owned
            }
        };
        let f = split_fcs(data, *fcs_included, index).map_err(err);
        *offset += 16 + u64::from(incl);
        Some(f)
    }

    fn next_ng(&mut self) -> Option<Result<FrameRef<'_>, InputError>> {
        let Self {
            inner: Inner::PcapNg(r),
            path,
            index,
            fcs_included,
            ng_fcs,
            owned,
            failed,
            ..
        } = self
        else {
            return None;
        };
        let mut err = |message: String| {
            *failed = true;
            InputError::file(path, message)
        };
        let fcs = loop {
            let block = match r.next_block()? {
                Ok(b) => b,
                Err(e) => return Some(Err(err(format!("after record {index}: {}", describe(&e))))),
            };
            let (iface, data, orig) = match block {
                NgBlock::InterfaceDescription(idb) => {
                    if idb.linktype != DataLink::ETHERNET {
                        let msg = format!(
                            "interface {}: link type {:?}, expected Ethernet (1)",
                            ng_fcs.len(),
                            idb.linktype
                        );
                        return Some(Err(err(msg)));
                    }
                    let fcs = idb
                        .options
                        .iter()
                        .any(|o| matches!(o, InterfaceDescriptionOption::IfFcsLen(4)));
                    ng_fcs.push(fcs);
                    continue;
                }
                NgBlock::EnhancedPacket(p) => (p.interface_id, p.data, p.original_len),
                NgBlock::SimplePacket(p) => {
                    let n = p.data.len() as u32;
                    (0, p.data, p.original_len.max(n))
                }
                NgBlock::Packet(p) => (p.interface_id as u32, p.data, p.original_len),
                _ => continue,
            };
            if (data.len() as u64) < u64::from(orig) {
                return Some(Err(err(format!(
                    "record {index}: only {} of {orig} octets captured (snaplen cut the frame)",
                    data.len()
                ))));
            }
            owned.clear();
            owned.extend_from_slice(&data);
            break *fcs_included || ng_fcs.get(iface as usize).copied().unwrap_or(false);
        };
        Some(split_fcs(owned, fcs, index).map_err(err))
    }
}

/// One frame of a capture, borrowed from the reader ([`FrameReader::next_ref`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameRef<'a> {
    /// 0-based record number among the frames of the file.
    pub index: u64,
    /// Destination MAC to the end of the payload.
    pub data: &'a [u8],
    /// The FCS the capture carried, if it included one.
    pub fcs: Option<[u8; 4]>,
}

impl FrameRef<'_> {
    /// An owned copy.
    pub fn to_owned(&self) -> Frame {
        Frame {
            index: self.index,
            data: self.data.to_vec(),
            fcs: self.fcs,
        }
    }
}

/// Record `index` as a frame, its FCS split off when the capture includes it (`fcs`); counts
/// the record.
fn split_fcs<'a>(data: &'a [u8], fcs: bool, index: &mut u64) -> Result<FrameRef<'a>, String> {
    let (data, fcs) = match (fcs, data.len().checked_sub(4)) {
        (false, _) => (data, None),
        (true, Some(n)) => {
            let (d, f) = data.split_at(n);
            (d, <[u8; 4]>::try_from(f).ok())
        }
        (true, None) => {
            return Err(format!(
                "record {index} has {} octets: too short to include an FCS",
                data.len()
            ))
        }
    };
    let f = FrameRef {
        index: *index,
        data,
        fcs,
    };
    *index += 1;
    Ok(f)
}

impl<R: Read> Iterator for FrameReader<R> {
    type Item = Result<Frame, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_ref().map(|r| r.map(|f| f.to_owned()))
    }
}

/// The snapshot length the pcap files we write declare (no frame is longer).
const SNAPLEN: u32 = 262_144;

/// Writes frames to a pcap file with nanosecond timestamps, LINKTYPE_ETHERNET.
pub struct FrameWriter<W: Write> {
    inner: W,
}

impl<W: Write> FrameWriter<W> {
    /// Writes the file header.
    ///
    /// # Errors
    /// The writer failed.
    pub fn new(inner: W) -> std::io::Result<Self> {
        let header = PcapHeader {
            snaplen: SNAPLEN,
            ts_resolution: TsResolution::NanoSecond,
            endianness: pcap_file::Endianness::Little,
            ..PcapHeader::default()
        };
        let inner = PcapWriter::with_header(inner, header)
            .map_err(to_io)?
            .into_writer();
        Ok(Self { inner })
    }

    /// Writes one frame stamped `time` after the start of the stream: the record header
    /// (seconds, nanoseconds, captured and original length, little-endian) in one piece, then
    /// the frame (`pcap_file` writes the header's four fields one by one, and a decode of
    /// 64-octet frames spent about a tenth of its instructions there).
    ///
    /// # Errors
    /// The writer failed, or the frame or its time does not fit a pcap record.
    pub fn write(&mut self, time: Duration, data: &[u8]) -> std::io::Result<()> {
        let secs = u32::try_from(time.as_secs())
            .map_err(|_| std::io::Error::other("pcap record: timestamp seconds > u32::MAX"))?;
        let len = u32::try_from(data.len())
            .ok()
            .filter(|&l| l <= SNAPLEN)
            .ok_or_else(|| {
                std::io::Error::other(format!(
                    "pcap record: a frame of {} octets is longer than the snapshot length {SNAPLEN}",
                    data.len()
                ))
            })?;
        let mut header = [0u8; 16];
        for (slot, field) in header
            .chunks_exact_mut(4)
            .zip([secs, time.subsec_nanos(), len, len])
        {
            slot.copy_from_slice(&field.to_le_bytes());
        }
        self.inner.write_all(&header)?;
        self.inner.write_all(data)
    }

    /// Flushes and returns the inner writer.
    ///
    /// # Errors
    /// The flush failed.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

fn to_io(e: PcapError) -> std::io::Error {
    match e {
        PcapError::IoError(io) => io,
        other => std::io::Error::other(other.to_string()),
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while let Some(rest) = buf.get_mut(n..) {
        if rest.is_empty() {
            break;
        }
        match r.read(rest)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(frames: &[&[u8]]) -> Vec<u8> {
        let mut w = FrameWriter::new(Vec::new()).unwrap();
        for (i, f) in frames.iter().enumerate() {
            w.write(Duration::from_nanos(i as u64 * 6400), f).unwrap();
        }
        w.finish().unwrap()
    }

    fn read(bytes: &[u8], fcs: bool) -> Result<Vec<Frame>, String> {
        FrameReader::new(bytes, Path::new("f.pcap"), fcs)
            .map_err(|e| e.to_string())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())
    }

    #[test]
    fn written_frames_read_back_in_order() {
        let bytes = capture(&[&[1u8; 60], &[2u8; 1514]]);
        let frames = read(&bytes, false).unwrap();
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[1].data, vec![2u8; 1514]);
        assert_eq!((frames[1].index, frames[1].fcs), (1, None));
    }

    #[test]
    fn records_are_what_pcap_file_reads_and_a_record_that_does_not_fit_is_refused() {
        // Read back by pcap_file's own reader (not ours): header fields, stamps and octets.
        let times = [
            0,
            6_400,
            1_999_999_999,
            4_294_967_295 * 1_000_000_000 + 999_999_999,
        ];
        let frames: Vec<Vec<u8>> = (0..4u8).map(|i| vec![i; 60 + 700 * i as usize]).collect();
        let mut w = FrameWriter::new(Vec::new()).unwrap();
        for (t, f) in times.iter().zip(&frames) {
            w.write(Duration::from_nanos(*t), f).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r = PcapReader::new(&bytes[..]).unwrap();
        let h = r.header();
        assert_eq!(
            (h.snaplen, h.ts_resolution, h.datalink),
            (SNAPLEN, TsResolution::NanoSecond, DataLink::ETHERNET)
        );
        for (t, f) in times.iter().zip(&frames) {
            let p = r.next_packet().unwrap().unwrap();
            assert_eq!(p.timestamp, Duration::from_nanos(*t));
            assert_eq!(p.orig_len as usize, f.len());
            assert_eq!(&p.data[..], &f[..]);
        }
        assert!(r.next_packet().is_none());
        // Seconds past u32::MAX, and a frame longer than the snapshot length: errors, and
        // nothing of the record is written.
        let mut w = FrameWriter::new(Vec::new()).unwrap();
        assert!(w.write(Duration::from_secs(1 << 32), &[0; 60]).is_err());
        let e = w
            .write(Duration::ZERO, &vec![0; SNAPLEN as usize + 1])
            .unwrap_err();
        assert!(e.to_string().contains("262145 octets"), "{e}");
        assert_eq!(w.finish().unwrap().len(), 24);
    }

    #[test]
    fn fcs_included_splits_the_last_four_octets() {
        let bytes = capture(&[&[9, 9, 9, 9, 9, 1, 2, 3, 4]]);
        let frames = read(&bytes, true).unwrap();
        assert_eq!(frames[0].data, [9; 5]);
        assert_eq!(frames[0].fcs, Some([1, 2, 3, 4]));
    }

    #[test]
    fn pcapng_with_if_fcslen_4_has_its_fcs_split_off() {
        use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
        use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
        use pcap_file::pcapng::PcapNgWriter;
        let mut w = PcapNgWriter::new(Vec::new()).unwrap();
        let with_fcs = InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0,
            options: vec![InterfaceDescriptionOption::IfFcsLen(4)],
        };
        let without = InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0,
            options: vec![],
        };
        w.write_pcapng_block(with_fcs).unwrap();
        w.write_pcapng_block(without).unwrap();
        for (iface, data) in [(0u32, vec![7u8; 64]), (1, vec![8u8; 60])] {
            let n = data.len() as u32;
            w.write_pcapng_block(EnhancedPacketBlock {
                interface_id: iface,
                timestamp: Duration::ZERO,
                original_len: n,
                data: std::borrow::Cow::Owned(data),
                options: vec![],
            })
            .unwrap();
        }
        let bytes = w.into_inner();
        let frames = read(&bytes, false).unwrap();
        assert_eq!(frames.len(), 2);
        // Interface 0 says its records include the FCS; interface 1 does not.
        assert_eq!((frames[0].data.len(), frames[0].fcs), (60, Some([7; 4])));
        assert_eq!((frames[1].data.len(), frames[1].fcs), (60, None));
    }

    #[test]
    fn malformed_captures_are_named_with_their_offset() {
        assert_eq!(
            read(&[], false).unwrap_err(),
            "f.pcap: empty file: expected a pcap or pcapng capture"
        );
        let e = read(b"GIF89a....", false).unwrap_err();
        assert!(
            e.starts_with("f.pcap: byte 0: not a pcap or pcapng file: magic 47494638"),
            "{e}"
        );
        let bytes = capture(&[&[1u8; 60], &[2u8; 60]]);
        let e = read(&bytes[..bytes.len() - 10], false).unwrap_err();
        assert!(
            e.contains("byte 100: record 1: the file ends inside a record"),
            "{e}"
        );
        // A record larger than the snaplen: patch the header's snaplen to 59.
        let mut small = bytes.clone();
        small[16..20].copy_from_slice(&59u32.to_le_bytes());
        let e = read(&small, false).unwrap_err();
        assert!(
            e.contains("byte 24: record 0: 60 octets captured, larger than the file's snaplen 59"),
            "{e}"
        );
    }
}
