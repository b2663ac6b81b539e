//! The only `unsafe` of the test bench: AF_PACKET sockets, their PACKET_MMAP rings
//! (TPACKET_V3 receive ring, TPACKET_V2 transmit ring), interface look-ups and the SIGINT flag.
//!
//! Everything here is a thin, total wrapper: errors come back as `io::Error` with the errno, the
//! callers in `wire` turn them into messages a user can act on.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::net::IpAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

/// `ETH_P_ALL` in network byte order, as `socket`/`bind` want it.
const ETH_P_ALL_BE: u16 = (libc::ETH_P_ALL as u16).to_be();

/// Runs the calling thread on CPU `cpu` only (sched_setaffinity).
///
/// # Errors
/// The kernel refused (no such CPU, or not allowed).
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    if cpu >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: CPU_SET writes bit `cpu` of `set`, which is within the set (checked above).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size passed; 0 means this thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The index of interface `name` in this network namespace, or `None` when there is none.
pub fn if_index(name: &str) -> Option<u32> {
    let c = CString::new(name).ok()?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    (i != 0).then_some(i)
}

/// The IP addresses configured on interface `name` (getifaddrs).
///
/// # Errors
/// getifaddrs failed.
pub fn addresses(name: &str) -> io::Result<Vec<IpAddr>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: `head` is a valid out-pointer; the list is freed below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut out = Vec::new();
    let mut p = head;
    while !p.is_null() {
        // SAFETY: `p` is a node of the list getifaddrs returned, not yet freed.
        let ifa = unsafe { &*p };
        p = ifa.ifa_next;
        if ifa.ifa_name.is_null() || ifa.ifa_addr.is_null() {
            continue;
        }
        // SAFETY: getifaddrs gives NUL-terminated names.
        let n = unsafe { std::ffi::CStr::from_ptr(ifa.ifa_name) };
        if n.to_bytes() != name.as_bytes() {
            continue;
        }
        // SAFETY: ifa_addr is non-null and points at a sockaddr whose family says its type.
        let family = i32::from(unsafe { (*ifa.ifa_addr).sa_family });
        if family == libc::AF_INET {
            // SAFETY: family AF_INET means the storage is a sockaddr_in.
            let sa = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_in) };
            out.push(IpAddr::from(u32::from_be(sa.sin_addr.s_addr).to_be_bytes()));
        } else if family == libc::AF_INET6 {
            // SAFETY: family AF_INET6 means the storage is a sockaddr_in6.
            let sa = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_in6) };
            out.push(IpAddr::from(sa.sin6_addr.s6_addr));
        }
    }
    // SAFETY: `head` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    Ok(out)
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Makes the first SIGINT (Ctrl-C) or SIGTERM set [`stop_requested`] instead of killing the
/// process; a second one kills it as usual. Blocking calls return EINTR (no SA_RESTART).
pub fn catch_interrupt() {
    // SAFETY: a zeroed sigaction is a valid value; the handler only stores to an atomic, which
    // is async-signal-safe.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as *const () as usize;
        sa.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

/// True once Ctrl-C (or SIGTERM) arrived.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn setsockopt<T>(fd: &OwnedFd, level: libc::c_int, name: libc::c_int, v: &T) -> io::Result<()> {
    // SAFETY: `v` points at a live T of the size passed.
    cvt(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// An AF_PACKET raw socket bound to one interface.
pub struct PacketSocket {
    fd: OwnedFd,
    ifindex: u32,
}

impl PacketSocket {
    /// Opens an unbound raw socket (no frames are queued to it until [`Self::bind`]).
    ///
    /// # Errors
    /// socket() failed: EPERM/EACCES without CAP_NET_RAW.
    pub fn open(ifindex: u32) -> io::Result<Self> {
        // SAFETY: plain syscall; the result is checked before use.
        let fd =
            cvt(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })?;
        // SAFETY: `fd` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Self { fd, ifindex })
    }

    /// Binds to the interface; `receive` says whether frames of every protocol are queued.
    ///
    /// # Errors
    /// bind() failed.
    pub fn bind(&self, receive: bool) -> io::Result<()> {
        // SAFETY: a zeroed sockaddr_ll is valid; fields set below.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = if receive { ETH_P_ALL_BE } else { 0 };
        sll.sll_ifindex = self.ifindex as i32;
        // SAFETY: `sll` is a valid sockaddr_ll of the size passed.
        cvt(unsafe {
            libc::bind(
                self.fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })
        .map(drop)
    }

    /// Promiscuous mode for as long as this socket lives (PACKET_ADD_MEMBERSHIP).
    ///
    /// # Errors
    /// The kernel refused.
    pub fn set_promiscuous(&self) -> io::Result<()> {
        let mreq = libc::packet_mreq {
            mr_ifindex: self.ifindex as i32,
            mr_type: libc::PACKET_MR_PROMISC as u16,
            mr_alen: 0,
            mr_address: [0; 8],
        };
        setsockopt(
            &self.fd,
            libc::SOL_PACKET,
            libc::PACKET_ADD_MEMBERSHIP,
            &mreq,
        )
    }

    /// Frames this host sends are not captured (PACKET_IGNORE_OUTGOING, Linux 4.20).
    ///
    /// # Errors
    /// The kernel refused.
    pub fn set_ignore_outgoing(&self) -> io::Result<()> {
        setsockopt(
            &self.fd,
            libc::SOL_PACKET,
            libc::PACKET_IGNORE_OUTGOING,
            &1i32,
        )
    }

    /// Sends bypass the qdisc layer (PACKET_QDISC_BYPASS).
    ///
    /// # Errors
    /// The kernel refused.
    pub fn set_qdisc_bypass(&self) -> io::Result<()> {
        setsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, &1i32)
    }

    /// The driver must not append an FCS: the frame carries its own (SO_NOFCS).
    ///
    /// # Errors
    /// The kernel refused.
    pub fn set_no_fcs(&self) -> io::Result<()> {
        setsockopt(&self.fd, libc::SOL_SOCKET, libc::SO_NOFCS, &1i32)
    }

    /// Asks for hardware receive timestamps in the ring (PACKET_TIMESTAMP); they appear only if
    /// the NIC stamps (see [`PacketSocket::enable_hw_timestamps`]).
    ///
    /// # Errors
    /// The kernel refused.
    pub fn set_hw_timestamps(&self) -> io::Result<()> {
        let v = libc::SOF_TIMESTAMPING_RAW_HARDWARE as i32;
        setsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_TIMESTAMP, &v)
    }

    /// Asks the NIC to timestamp every frame it sends and receives (SIOCSHWTSTAMP on
    /// `ifname`: transmit on, receive all), as ixgbe and most PTP-capable drivers allow.
    /// Returns the receive filter the driver took (it may widen the one asked for).
    ///
    /// # Errors
    /// The driver has no hardware timestamping (EOPNOTSUPP, as a veth), or refused (EPERM
    /// without CAP_NET_ADMIN, ERANGE for a mode it lacks).
    pub fn enable_hw_timestamps(&self, ifname: &str) -> io::Result<i32> {
        /// `struct hwtstamp_config` (linux/net_tstamp.h).
        #[repr(C)]
        struct HwTstampConfig {
            flags: libc::c_int,
            tx_type: libc::c_int,
            rx_filter: libc::c_int,
        }
        const HWTSTAMP_TX_ON: libc::c_int = 1;
        const HWTSTAMP_FILTER_ALL: libc::c_int = 1;
        let mut cfg = HwTstampConfig {
            flags: 0,
            tx_type: HWTSTAMP_TX_ON,
            rx_filter: HWTSTAMP_FILTER_ALL,
        };
        // SAFETY: ifreq is plain data; all-zero is a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        let name = ifname.as_bytes();
        if name.len() >= req.ifr_name.len() {
            return Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG));
        }
        for (d, s) in req.ifr_name.iter_mut().zip(name) {
            *d = *s as libc::c_char;
        }
        req.ifr_ifru.ifru_data = std::ptr::addr_of_mut!(cfg).cast();
        // SAFETY: SIOCSHWTSTAMP reads an ifreq whose ifru_data points to a hwtstamp_config;
        // both live on this stack frame for the duration of the call.
        let r = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SIOCSHWTSTAMP as _,
                std::ptr::addr_of_mut!(req),
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(cfg.rx_filter)
    }

    /// Transmit timestamps: each frame sent (or, `per_message`, each one a
    /// [`MmsgSender`] marks) is stamped by the kernel (software: when the driver takes it; with
    /// `hardware`, also by the NIC) and the stamp is queued on the socket's error queue with
    /// the stamped frame's number on this socket (0 for the first one after this call), for
    /// [`PacketSocket::tx_timestamps`].
    ///
    /// # Errors
    /// The kernel refused SO_TIMESTAMPING.
    pub fn enable_tx_timestamps(&self, hardware: bool, per_message: bool) -> io::Result<()> {
        let mut flags = libc::SOF_TIMESTAMPING_SOFTWARE
            | libc::SOF_TIMESTAMPING_OPT_ID
            | libc::SOF_TIMESTAMPING_OPT_TSONLY;
        if hardware {
            flags |= libc::SOF_TIMESTAMPING_RAW_HARDWARE;
        }
        if !per_message {
            flags |= tx_stamp_flags(hardware);
        }
        // Each stamp waiting in the error queue is charged to the receive buffer: room for a
        // few thousand between two reads (FORCE as root, else up to rmem_max).
        let room: libc::c_int = 32 << 20;
        if setsockopt(&self.fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &room).is_err() {
            let _ = setsockopt(&self.fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &room);
        }
        setsockopt(
            &self.fd,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPING,
            &(flags as libc::c_int),
        )
    }

    /// Takes the transmit timestamps queued so far (see
    /// [`PacketSocket::enable_tx_timestamps`]): `(frame number, ns since the epoch, from the
    /// NIC)`, the NIC's stamp when there is one. Never blocks.
    ///
    /// # Errors
    /// recvmsg failed for another reason than an empty queue.
    pub fn tx_timestamps(&self, out: &mut Vec<(u32, i64, bool)>) -> io::Result<usize> {
        let mut taken = 0;
        loop {
            let mut control = [0u64; 64];
            let mut data = [0u8; 16];
            let mut iov = libc::iovec {
                iov_base: data.as_mut_ptr().cast(),
                iov_len: data.len(),
            };
            // SAFETY: msghdr is plain data; all-zero is a valid empty header.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = std::mem::size_of_val(&control) as _;
            // SAFETY: `msg` points to `iov`, `data` and `control`, all live for the call.
            let r = unsafe {
                libc::recvmsg(
                    self.fd.as_raw_fd(),
                    &mut msg,
                    libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT,
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                return match e.raw_os_error() {
                    Some(libc::EAGAIN | libc::EINTR) => Ok(taken),
                    _ => Err(e),
                };
            }
            let (mut id, mut stamp) = (None, None);
            // SAFETY: the kernel filled `msg_control` up to `msg_controllen` with cmsghdrs;
            // CMSG_FIRSTHDR/NXTHDR stay within it, and each payload is read unaligned at most
            // as long as its cmsg_len says.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    let (level, kind) = ((*c).cmsg_level, (*c).cmsg_type);
                    let len = (*c).cmsg_len as usize;
                    let body = libc::CMSG_DATA(c);
                    if level == libc::SOL_SOCKET
                        && kind == libc::SO_TIMESTAMPING
                        && len
                            >= libc::CMSG_LEN(3 * std::mem::size_of::<libc::timespec>() as u32)
                                as usize
                    {
                        let ts: [libc::timespec; 3] = std::ptr::read_unaligned(body.cast());
                        let ns = |t: &libc::timespec| {
                            t.tv_sec
                                .saturating_mul(1_000_000_000)
                                .saturating_add(t.tv_nsec)
                        };
                        stamp = if ts[2].tv_sec != 0 || ts[2].tv_nsec != 0 {
                            Some((ns(&ts[2]), true))
                        } else {
                            Some((ns(&ts[0]), false))
                        };
                    } else if ((level == libc::SOL_PACKET && kind == libc::PACKET_TX_TIMESTAMP)
                        || (level == libc::SOL_IP && kind == libc::IP_RECVERR))
                        && len
                            >= libc::CMSG_LEN(std::mem::size_of::<libc::sock_extended_err>() as u32)
                                as usize
                    {
                        let e: libc::sock_extended_err = std::ptr::read_unaligned(body.cast());
                        if e.ee_origin == libc::SO_EE_ORIGIN_TIMESTAMPING {
                            id = Some(e.ee_data);
                        }
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
            }
            if let (Some(id), Some((ns, hw))) = (id, stamp) {
                out.push((id, ns, hw));
                taken += 1;
            }
        }
    }

    /// Sends one frame (DA first).
    ///
    /// # Errors
    /// send() failed (EMSGSIZE above the MTU, ENOBUFS when the device queue is full).
    pub fn send(&self, frame: &[u8]) -> io::Result<usize> {
        // SAFETY: `frame` is a live slice of the length passed.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Frames the kernel received for this socket and frames it dropped (ring full) since the
    /// last call (PACKET_STATISTICS).
    ///
    /// # Errors
    /// getsockopt failed.
    pub fn statistics(&self) -> io::Result<(u64, u64)> {
        let mut st = libc::tpacket_stats_v3 {
            tp_packets: 0,
            tp_drops: 0,
            tp_freeze_q_cnt: 0,
        };
        let mut len = std::mem::size_of::<libc::tpacket_stats_v3>() as libc::socklen_t;
        // SAFETY: `st` and `len` are valid out-pointers of the sizes given.
        cvt(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut st as *mut libc::tpacket_stats_v3).cast(),
                &mut len,
            )
        })?;
        Ok((u64::from(st.tp_packets), u64::from(st.tp_drops)))
    }

    fn poll(&self, events: libc::c_short, timeout: Duration) -> io::Result<bool> {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events,
            revents: 0,
        };
        // ppoll, not poll: a wait shorter than a millisecond (the capture's 200 us at top
        // speed) must wait, not return at once and spin on the socket's queue lock.
        let t = libc::timespec {
            tv_sec: timeout.as_secs().min(i32::MAX as u64) as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: one valid pollfd, a valid timespec, no signal mask.
        let r = unsafe { libc::ppoll(&mut p, 1, &t, std::ptr::null()) };
        match r {
            r if r < 0 => {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    Ok(false)
                } else {
                    Err(e)
                }
            }
            0 => Ok(false),
            _ => Ok(true),
        }
    }
}

/// Octets of a receive ring block prefetched after the frame being judged, at least.
const PREFETCH: usize = 1024;

/// A shared memory region mapped from a packet socket's ring.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory; access is synchronised through the ring status words.
unsafe impl Send for Mapping {}

impl Mapping {
    fn new(fd: &OwnedFd, len: usize) -> io::Result<Self> {
        // SAFETY: mapping a ring the kernel just set up on `fd`, length as configured.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_LOCKED,
                fd.as_raw_fd(),
                0,
            )
        };
        let p = if p == libc::MAP_FAILED {
            // MAP_LOCKED fails under a small RLIMIT_MEMLOCK: retry without it.
            // SAFETY: as above.
            unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd.as_raw_fd(),
                    0,
                )
            }
        } else {
            p
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Self { ptr: p.cast(), len })
    }

    /// The u32 status word at `offset` (4-aligned, inside the mapping: callers guarantee it).
    fn status(&self, offset: usize) -> &AtomicU32 {
        debug_assert!(offset.is_multiple_of(4) && offset + 4 <= self.len);
        // SAFETY: offset is 4-aligned and in bounds (ring geometry); the kernel and we share
        // the word, so it is accessed atomically only.
        unsafe { AtomicU32::from_ptr(self.ptr.add(offset).cast()) }
    }

    fn read_u32(&self, offset: usize) -> u32 {
        if offset + 4 > self.len {
            return 0;
        }
        // SAFETY: in bounds (checked); the kernel does not write a block we own.
        unsafe { self.ptr.add(offset).cast::<u32>().read_unaligned() }
    }

    fn read_u16(&self, offset: usize) -> u16 {
        if offset + 2 > self.len {
            return 0;
        }
        // SAFETY: in bounds (checked).
        unsafe { self.ptr.add(offset).cast::<u16>().read_unaligned() }
    }

    fn slice(&self, offset: usize, len: usize) -> &[u8] {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return &[];
        }
        // SAFETY: in bounds (checked); we own this block until we hand it back.
        unsafe { std::slice::from_raw_parts(self.ptr.add(offset), len) }
    }

    /// Asks the CPU to bring `[offset, offset + len)` into its cache (bounded by the mapping),
    /// so that the frames after the one being judged are on their way while it is: another CPU
    /// (or the NIC) wrote them.
    fn prefetch(&self, offset: usize, len: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            let end = offset.saturating_add(len).min(self.len);
            for line in (offset..end).step_by(64) {
                // SAFETY: a prefetch reads nothing and cannot fault; the address is inside the
                // mapping all the same.
                unsafe {
                    std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                        self.ptr.add(line).cast::<i8>(),
                    );
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (offset, len);
    }

    fn write(&mut self, offset: usize, data: &[u8]) -> bool {
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > self.len)
        {
            return false;
        }
        // SAFETY: in bounds (checked); we own this slot until we mark it SEND_REQUEST.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset), data.len()) };
        true
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `new` mapped, once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// One frame from the receive ring.
pub struct RxFrame<'a> {
    /// DA onwards, as the kernel delivered it (a VLAN tag may have been stripped).
    pub data: &'a [u8],
    /// Length on the wire as the kernel saw it (may exceed `data` if truncated).
    pub wire_len: u32,
    /// The stripped VLAN tag: (TPID, TCI).
    pub vlan: Option<(u16, u16)>,
    /// Receive time, ns since the Unix epoch.
    pub time_ns: i64,
    /// The time came from the NIC's clock.
    pub hardware_time: bool,
}

// Offsets into struct tpacket_block_desc (version, offset_to_priv, then tpacket_hdr_v1).
const BLOCK_STATUS: usize = 8;
const BLOCK_NUM_PKTS: usize = 12;
const BLOCK_FIRST_PKT: usize = 16;
// Offsets into struct tpacket3_hdr.
const H3_NEXT: usize = 0;
const H3_SEC: usize = 4;
const H3_NSEC: usize = 8;
const H3_SNAPLEN: usize = 12;
const H3_LEN: usize = 16;
const H3_STATUS: usize = 20;
const H3_MAC: usize = 24;
const H3_VLAN_TCI: usize = 32;
const H3_VLAN_TPID: usize = 36;

/// What waits in a receive ring ([`RxRing::unread`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unread {
    /// Filled blocks handed over and not read yet.
    pub filled_blocks: usize,
    /// Frames arrived and not read yet.
    pub frames: usize,
}

/// A TPACKET_V3 receive ring (blocks of frames the kernel fills and we hand back).
pub struct RxRing {
    sock: PacketSocket,
    map: Mapping,
    block_size: usize,
    block_count: usize,
    current: usize,
}

impl RxRing {
    /// Sets up a receive ring of `block_count` blocks of `block_size` octets on `sock`,
    /// then binds it for frames of every protocol.
    ///
    /// # Errors
    /// A setsockopt, mmap or bind failed.
    pub fn new(sock: PacketSocket, block_size: usize, block_count: usize) -> io::Result<Self> {
        setsockopt(
            &sock.fd,
            libc::SOL_PACKET,
            libc::PACKET_VERSION,
            &(libc::tpacket_versions::TPACKET_V3 as i32),
        )?;
        let req = libc::tpacket_req3 {
            tp_block_size: block_size as u32,
            tp_block_nr: block_count as u32,
            tp_frame_size: 2048,
            tp_frame_nr: (block_size / 2048 * block_count) as u32,
            tp_retire_blk_tov: 2,
            tp_sizeof_priv: 0,
            tp_feature_req_word: 0,
        };
        setsockopt(&sock.fd, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)?;
        let map = Mapping::new(&sock.fd, block_size * block_count)?;
        sock.bind(true)?;
        Ok(Self {
            sock,
            map,
            block_size,
            block_count,
            current: 0,
        })
    }

    /// The socket (statistics).
    pub fn socket(&self) -> &PacketSocket {
        &self.sock
    }

    /// What waits in the ring, in one walk from the next block to read: the blocks the kernel
    /// has filled and handed over (0: the reader keeps up; the ring's block count: it is full
    /// and the kernel drops what arrives), and the frames not read yet, those of the filled
    /// blocks and those the kernel has put so far in the block it is filling (its count is
    /// written frame by frame, and read here live).
    pub fn unread(&self) -> Unread {
        let mut u = Unread::default();
        for k in 0..self.block_count {
            let base = (self.current + k) % self.block_count * self.block_size;
            u.frames += self
                .map
                .status(base + BLOCK_NUM_PKTS)
                .load(Ordering::Relaxed) as usize;
            if self.map.status(base + BLOCK_STATUS).load(Ordering::Acquire) & libc::TP_STATUS_USER
                == 0
            {
                break;
            }
            u.filled_blocks += 1;
        }
        u
    }

    /// The ring's number of blocks.
    pub fn block_count(&self) -> usize {
        self.block_count
    }

    /// Waits at most `timeout` for a filled block and hands each of its frames to `f`; returns
    /// the number of frames.
    ///
    /// # Errors
    /// poll() failed.
    pub fn next_block(
        &mut self,
        timeout: Duration,
        mut f: impl FnMut(RxFrame<'_>),
    ) -> io::Result<usize> {
        let base = self.current * self.block_size;
        let status = self.map.status(base + BLOCK_STATUS);
        if status.load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
            self.sock.poll(libc::POLLIN | libc::POLLERR, timeout)?;
            if status.load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
                return Ok(0);
            }
        }
        let n = self.map.read_u32(base + BLOCK_NUM_PKTS) as usize;
        let mut off = base + self.map.read_u32(base + BLOCK_FIRST_PKT) as usize;
        let block_end = base + self.block_size;
        // Prefetched up to here: the two frames after the one being judged, or PREFETCH
        // octets after it, whichever is more.
        let mut ahead = off;
        for _ in 0..n {
            let next = self.map.read_u32(off + H3_NEXT) as usize;
            let want = (off + (2 * next).max(PREFETCH)).min(block_end);
            if want > ahead {
                self.map.prefetch(ahead, want - ahead);
                ahead = want;
            }
            let st = self.map.read_u32(off + H3_STATUS);
            let snap = self.map.read_u32(off + H3_SNAPLEN) as usize;
            let mac = usize::from(self.map.read_u16(off + H3_MAC));
            let vlan = (st & libc::TP_STATUS_VLAN_VALID != 0).then(|| {
                let tpid = if st & libc::TP_STATUS_VLAN_TPID_VALID != 0 {
                    self.map.read_u16(off + H3_VLAN_TPID)
                } else {
                    0x8100
                };
                (tpid, self.map.read_u32(off + H3_VLAN_TCI) as u16)
            });
            let sec = i64::from(self.map.read_u32(off + H3_SEC));
            let nsec = i64::from(self.map.read_u32(off + H3_NSEC));
            f(RxFrame {
                data: self.map.slice(off + mac, snap),
                wire_len: self.map.read_u32(off + H3_LEN),
                vlan,
                time_ns: sec * 1_000_000_000 + nsec,
                hardware_time: st & libc::TP_STATUS_TS_RAW_HARDWARE != 0,
            });
            if next == 0 {
                break;
            }
            off += next;
        }
        // Its count is zeroed (the kernel does so only when it opens the block), so that
        // `unread` reads 0 for a block handed back and not yet filled again.
        self.map
            .status(base + BLOCK_NUM_PKTS)
            .store(0, Ordering::Relaxed);
        status.store(0, Ordering::Release); // TP_STATUS_KERNEL: the block goes back
        self.current = (self.current + 1) % self.block_count;
        Ok(n)
    }
}

/// The flags that make the kernel (and with `hardware` the NIC) stamp a frame sent.
fn tx_stamp_flags(hardware: bool) -> u32 {
    libc::SOF_TIMESTAMPING_TX_SOFTWARE
        | if hardware {
            libc::SOF_TIMESTAMPING_TX_HARDWARE
        } else {
            0
        }
}

/// Where a queued frame's octets are.
#[derive(Clone, Copy)]
enum Queued<'a> {
    /// The caller's, for as long as the sender lives.
    Borrowed(&'a [u8]),
    /// (offset, length) in the arena.
    Arena(usize, usize),
}

/// Frames sent with one `sendmmsg()` per batch: the kernel copies each frame into a linear
/// buffer (no page fragments, which a veth would have to copy again into freshly allocated
/// pages, as it does for a transmit ring's frames). A frame that outlives the sender is sent
/// from where it is ([`MmsgSender::push_borrowed`]); others are copied into an arena first.
pub struct MmsgSender<'a> {
    sock: PacketSocket,
    arena: Vec<u8>,
    /// Each queued frame, and whether it is stamped.
    frames: Vec<(Queued<'a>, bool)>,
    /// Per-frame transmit stamps: the flags, and every how many frames one is stamped.
    stamping: Option<(u32, u64)>,
    /// Frames pushed so far.
    pushed: u64,
    /// Sends the kernel refused with ENOBUFS/EAGAIN (queue full) and that were made again.
    pub retried: u64,
}

impl<'a> MmsgSender<'a> {
    /// A sender on `sock`, bound for sending.
    ///
    /// # Errors
    /// bind failed.
    pub fn new(sock: PacketSocket) -> io::Result<Self> {
        sock.bind(false)?;
        Ok(Self {
            sock,
            arena: Vec::with_capacity(1 << 20),
            frames: Vec::with_capacity(1024),
            stamping: None,
            pushed: 0,
            retried: 0,
        })
    }

    /// Asks for a transmit stamp on every `every`-th frame pushed from now on, the first one
    /// included (the socket must have [`PacketSocket::enable_tx_timestamps`] per message).
    pub fn stamp_every(&mut self, hardware: bool, every: u64) {
        self.stamping = Some((tx_stamp_flags(hardware), every.max(1)));
        self.pushed = 0;
    }

    /// Frames queued and not yet sent.
    pub fn queued(&self) -> usize {
        self.frames.len()
    }

    /// The socket it sends on.
    pub fn socket(&self) -> &PacketSocket {
        &self.sock
    }

    /// Queues a copy of `frame`.
    pub fn push(&mut self, frame: &[u8]) {
        let at = Queued::Arena(self.arena.len(), frame.len());
        self.arena.extend_from_slice(frame);
        self.queue(at);
    }

    /// Queues `frame` itself, without a copy.
    pub fn push_borrowed(&mut self, frame: &'a [u8]) {
        self.queue(Queued::Borrowed(frame));
    }

    fn queue(&mut self, q: Queued<'a>) {
        let stamped = self
            .stamping
            .is_some_and(|(_, every)| self.pushed.is_multiple_of(every));
        self.pushed += 1;
        self.frames.push((q, stamped));
    }

    /// Sends every queued frame, waiting while the device queue is full (a qdisc or a driver
    /// that refuses with ENOBUFS: the refused frame was not sent and is sent again), up to
    /// `timeout` without progress.
    ///
    /// # Errors
    /// sendmmsg failed (EMSGSIZE above the MTU...), or the queue stayed full.
    pub fn flush(&mut self, timeout: Duration) -> io::Result<()> {
        let sent = self.send_all(timeout);
        self.frames.clear();
        self.arena.clear();
        sent
    }

    /// Sends every queued frame (see [`Self::flush`]).
    fn send_all(&mut self, timeout: Duration) -> io::Result<()> {
        let mut end = std::time::Instant::now() + timeout;
        let arena = &self.arena;
        let mut iovs: Vec<libc::iovec> = self
            .frames
            .iter()
            .map(|&(q, _)| {
                let f = match q {
                    Queued::Borrowed(f) => f,
                    Queued::Arena(off, len) => arena.get(off..off + len).unwrap_or_default(),
                };
                // The kernel only reads through the pointer (sendmsg); the frames are not
                // touched until the iovecs are dropped at the end of this call.
                libc::iovec {
                    iov_base: f.as_ptr().cast_mut().cast(),
                    iov_len: f.len(),
                }
            })
            .collect();
        // A control message asking for a transmit stamp, for the frames marked.
        let flags = self.stamping.map_or(0, |(f, _)| f);
        let mut controls: Vec<[u64; 4]> = vec![[0; 4]; self.frames.len()];
        let mut msgs: Vec<libc::mmsghdr> = iovs
            .iter_mut()
            .zip(controls.iter_mut())
            .zip(&self.frames)
            .map(|((iov, control), &(_, stamped))| {
                // SAFETY: mmsghdr is plain data; all-zero is a valid empty header.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_iov = iov;
                m.msg_hdr.msg_iovlen = 1;
                if stamped {
                    // SAFETY: `control` is 32 aligned bytes, more than CMSG_SPACE(4) = 24; the
                    // header written by CMSG_FIRSTHDR and its 4-byte payload fit in it, and it
                    // lives until the headers are dropped at the end of this call.
                    unsafe {
                        m.msg_hdr.msg_control = control.as_mut_ptr().cast();
                        m.msg_hdr.msg_controllen = libc::CMSG_SPACE(4) as _;
                        let c = libc::CMSG_FIRSTHDR(&m.msg_hdr);
                        (*c).cmsg_level = libc::SOL_SOCKET;
                        (*c).cmsg_type = libc::SO_TIMESTAMPING;
                        (*c).cmsg_len = libc::CMSG_LEN(4) as _;
                        std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<u32>(), flags);
                    }
                }
                m
            })
            .collect();
        let mut done = 0;
        while done < msgs.len() {
            let rest = &mut msgs[done..];
            // SAFETY: `rest` holds valid headers whose iovecs point into the live arena.
            let n = unsafe {
                libc::sendmmsg(
                    self.sock.fd.as_raw_fd(),
                    rest.as_mut_ptr(),
                    rest.len() as libc::c_uint,
                    0,
                )
            };
            if n > 0 {
                // sendmmsg stops at the first refused message and reports what it sent before
                // (the error itself is lost): that message is the next one, sent again.
                if (n as usize) < rest.len() {
                    self.retried += 1;
                }
                done += n as usize;
                end = std::time::Instant::now() + timeout;
                continue;
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR)
                    if std::time::Instant::now() < end && !stop_requested() =>
                {
                    if e.raw_os_error() != Some(libc::EINTR) {
                        self.retried += 1;
                    }
                    std::thread::sleep(Duration::from_micros(20));
                }
                _ => return Err(e),
            }
        }
        Ok(())
    }
}

// struct tpacket2_hdr: tp_status at 0, tp_len at 4; data at TPACKET_ALIGN(sizeof hdr) = 32.
const H2_LEN: usize = 4;
const H2_DATA: usize = 32;

/// A TPACKET_V2 transmit ring: frames are written to slots and sent by one `send()` each batch.
pub struct TxRing {
    sock: PacketSocket,
    map: Mapping,
    frame_size: usize,
    frame_count: usize,
    next: usize,
    queued: usize,
}

impl TxRing {
    /// Sets up a transmit ring of slots that hold frames of up to `max_frame` octets, about
    /// `total` octets in all, and binds it (sending only).
    ///
    /// # Errors
    /// A setsockopt, mmap or bind failed.
    pub fn new(sock: PacketSocket, max_frame: usize, total: usize) -> io::Result<Self> {
        setsockopt(
            &sock.fd,
            libc::SOL_PACKET,
            libc::PACKET_VERSION,
            &(libc::tpacket_versions::TPACKET_V2 as i32),
        )?;
        let frame_size = (max_frame + H2_DATA).next_power_of_two().max(128);
        let block_size = frame_size.max(4096);
        let block_count = (total / block_size).max(4);
        let frame_count = block_size / frame_size * block_count;
        let req = libc::tpacket_req {
            tp_block_size: block_size as u32,
            tp_block_nr: block_count as u32,
            tp_frame_size: frame_size as u32,
            tp_frame_nr: frame_count as u32,
        };
        setsockopt(&sock.fd, libc::SOL_PACKET, libc::PACKET_TX_RING, &req)?;
        let map = Mapping::new(&sock.fd, block_size * block_count)?;
        sock.bind(false)?;
        Ok(Self {
            sock,
            map,
            frame_size,
            frame_count,
            next: 0,
            queued: 0,
        })
    }

    /// Slots in the ring.
    pub fn capacity(&self) -> usize {
        self.frame_count
    }

    /// Frames written but not yet handed to the kernel by [`Self::flush`].
    pub fn queued(&self) -> usize {
        self.queued
    }

    /// Writes `frame` into the next slot, waiting (flushing) while the ring is full.
    /// Returns false if the frame does not fit a slot.
    ///
    /// # Errors
    /// The kernel refused a frame of an earlier batch (e.g. EMSGSIZE), or poll failed.
    pub fn push(&mut self, frame: &[u8]) -> io::Result<bool> {
        if frame.len() + H2_DATA > self.frame_size {
            return Ok(false);
        }
        let slot = self.next * self.frame_size;
        loop {
            let st = self.map.status(slot).load(Ordering::Acquire);
            if st == libc::TP_STATUS_AVAILABLE {
                break;
            }
            if st & libc::TP_STATUS_WRONG_FORMAT != 0 {
                return Err(io::Error::from_raw_os_error(libc::EMSGSIZE));
            }
            if stop_requested() {
                return Ok(false);
            }
            if st == libc::TP_STATUS_SEND_REQUEST {
                // Written by an earlier push and not taken yet: the kernel stops walking the
                // ring when the device pushes back (a full backlog on a busy machine), so it
                // must be kicked again, whatever this batch has queued.
                self.queued = self.queued.max(1);
            }
            self.flush()?;
            self.sock.poll(libc::POLLOUT, Duration::from_millis(10))?;
        }
        self.map.write(slot + H2_DATA, frame);
        self.map
            .status(slot + H2_LEN)
            .store(frame.len() as u32, Ordering::Relaxed);
        self.map
            .status(slot)
            .store(libc::TP_STATUS_SEND_REQUEST, Ordering::Release);
        self.next = (self.next + 1) % self.frame_count;
        self.queued += 1;
        Ok(true)
    }

    /// Hands every written frame to the kernel (one `send()`; with PACKET_QDISC_BYPASS the
    /// kernel transmits them in this call).
    ///
    /// # Errors
    /// send() failed.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.queued == 0 {
            return Ok(());
        }
        // SAFETY: a zero-length send with a null buffer is how a TX ring is kicked.
        let r = unsafe {
            libc::send(
                self.sock.fd.as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EAGAIN | libc::ENOBUFS | libc::EINTR) => {
                    // Pushed back: the frames stay queued, and the next flush kicks again
                    // (after a short yield, so that the receiving side gets the CPU).
                    std::thread::sleep(Duration::from_micros(50));
                    return Ok(());
                }
                _ => return Err(e),
            }
        }
        self.queued = 0;
        Ok(())
    }

    /// Flushes and waits (at most `timeout`) until the kernel has sent every slot.
    ///
    /// # Errors
    /// send() failed or a frame was refused.
    pub fn drain(&mut self, timeout: Duration) -> io::Result<()> {
        let end = std::time::Instant::now() + timeout;
        loop {
            self.flush()?;
            let mut busy = false;
            for i in 0..self.frame_count {
                let st = self.map.status(i * self.frame_size).load(Ordering::Acquire);
                if st & libc::TP_STATUS_WRONG_FORMAT != 0 {
                    return Err(io::Error::from_raw_os_error(libc::EMSGSIZE));
                }
                if st != libc::TP_STATUS_AVAILABLE {
                    busy = true;
                    // Still pending: kick again below.
                    self.queued = self.queued.max(1);
                    break;
                }
            }
            if !busy || std::time::Instant::now() > end || stop_requested() {
                return Ok(());
            }
            self.sock.poll(libc::POLLOUT, Duration::from_millis(1))?;
        }
    }
}

/// A queueing discipline on an interface's transmit path, as `tc qdisc show` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qdisc {
    /// Its kind (`noqueue`, `pfifo_fast`, `mq`, `tbf`, `netem`, ...).
    pub kind: String,
    /// Its parent handle (`TC_H_ROOT` = 0xFFFF_FFFF for the root).
    pub parent: u32,
}

/// The transmit (egress) qdiscs of interface `ifindex`: an RTM_GETQDISC dump over rtnetlink,
/// keeping this interface's qdiscs and leaving out ingress/clsact.
///
/// # Errors
/// The netlink socket failed or the kernel answered with an error.
pub fn qdiscs(ifindex: u32) -> io::Result<Vec<Qdisc>> {
    const RTM_NEWQDISC: u16 = 36;
    const RTM_GETQDISC: u16 = 38;
    const TCA_KIND: u16 = 1;
    const TC_H_INGRESS: u32 = 0xFFFF_FFF1;
    const NLMSG_ERROR: u16 = 2;
    const NLMSG_DONE: u16 = 3;
    const HDR: usize = 16; // struct nlmsghdr
    const TCMSG: usize = 20; // struct tcmsg
                             // SAFETY: plain syscall; the result is checked before use.
    let fd = cvt(unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            libc::NETLINK_ROUTE,
        )
    })?;
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = [0u8; HDR + TCMSG];
    req[0..4].copy_from_slice(&((HDR + TCMSG) as u32).to_ne_bytes());
    req[4..6].copy_from_slice(&RTM_GETQDISC.to_ne_bytes());
    let flags = (libc::NLM_F_REQUEST | libc::NLM_F_DUMP) as u16;
    req[6..8].copy_from_slice(&flags.to_ne_bytes());
    req[8..12].copy_from_slice(&1u32.to_ne_bytes());
    req[HDR + 4..HDR + 8].copy_from_slice(&(ifindex as i32).to_ne_bytes());
    // SAFETY: `req` is a live buffer of the length passed; the kernel is the destination
    // (an unbound netlink socket sends to pid 0).
    cvt(unsafe { libc::send(fd.as_raw_fd(), req.as_ptr().cast(), req.len(), 0) } as libc::c_int)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 32 * 1024];
    let u16_at = |b: &[u8], i: usize| u16::from_ne_bytes([b[i], b[i + 1]]);
    let u32_at = |b: &[u8], i: usize| u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    loop {
        // SAFETY: `buf` is a live, writable buffer of the length passed.
        let n = unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let data = &buf[..n as usize];
        if data.is_empty() {
            return Ok(out);
        }
        let mut at = 0;
        while at + HDR <= data.len() {
            let len = u32_at(data, at) as usize;
            if len < HDR || at + len > data.len() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "short netlink message",
                ));
            }
            let msg = &data[at..at + len];
            match u16_at(msg, 4) {
                NLMSG_DONE => return Ok(out),
                NLMSG_ERROR => {
                    let errno = if msg.len() >= HDR + 4 {
                        u32_at(msg, HDR) as i32
                    } else {
                        0
                    };
                    if errno != 0 {
                        return Err(io::Error::from_raw_os_error(-errno));
                    }
                }
                RTM_NEWQDISC if msg.len() >= HDR + TCMSG => {
                    let index = u32_at(msg, HDR + 4);
                    let parent = u32_at(msg, HDR + 12);
                    let mut a = HDR + TCMSG;
                    let mut kind = None;
                    while a + 4 <= msg.len() {
                        let alen = usize::from(u16_at(msg, a));
                        if alen < 4 || a + alen > msg.len() {
                            break;
                        }
                        if u16_at(msg, a + 2) == TCA_KIND {
                            let v = &msg[a + 4..a + alen];
                            let v = v.split(|&b| b == 0).next().unwrap_or(v);
                            kind = Some(String::from_utf8_lossy(v).into_owned());
                        }
                        a += (alen + 3) & !3;
                    }
                    if index == ifindex && parent != TC_H_INGRESS {
                        if let Some(kind) = kind {
                            out.push(Qdisc { kind, parent });
                        }
                    }
                }
                _ => {}
            }
            at += (len + 3) & !3;
        }
    }
}
