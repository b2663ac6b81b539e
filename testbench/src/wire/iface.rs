//! What baser learns about an interface before and after a run: that it may be used (named
//! explicitly, no default route, no global address), its MTU, its offload features and its
//! counters (`/sys/class/net/IF/statistics` and `ethtool -S`).

use super::sys;
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::process::Command;

/// An interface that passed the safety checks.
#[derive(Clone, Debug, Serialize)]
pub struct Interface {
    /// Its name.
    pub name: String,
    /// Its index.
    #[serde(skip)]
    pub index: u32,
    /// Its MTU (octets of payload after the 14-octet Ethernet header).
    pub mtu: usize,
    /// A virtual device (veth, bridge, tun...: no `/sys/class/net/IF/device`), not a NIC.
    #[serde(rename = "virtual")]
    pub is_virtual: bool,
    /// A qdisc configured on its transmit path (`tbf`, `netem`, `htb`...; `unknown` when the
    /// kernel would not say): frames are sent through it, so its shaping and faults apply.
    /// `None` when only the kernel's plain queues are there: frames bypass them
    /// (PACKET_QDISC_BYPASS), which changes nothing but the speed.
    pub qdisc: Option<String>,
}

/// Looks `name` up and refuses it when it carries the default route or a global address
/// (unless `force`).
///
/// # Errors
/// A message saying why the interface cannot be used.
pub fn check(name: &str, force: bool) -> Result<Interface, String> {
    let Some(index) = sys::if_index(name) else {
        return Err(format!(
            "no interface named {name:?} in this network namespace (see `ip link`)"
        ));
    };
    if !force {
        if let Some(r) = default_route_on(name) {
            return Err(format!(
                "{name} carries the default route ({r}): baser sends raw test frames only to a \
                 dedicated test port; use --force if {name} really is one"
            ));
        }
        refuse_global(name, sys::addresses(name))?;
    }
    let mtu = std::fs::read_to_string(format!("/sys/class/net/{name}/mtu"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1500);
    let is_virtual = !std::path::Path::new(&format!("/sys/class/net/{name}/device")).exists();
    Ok(Interface {
        is_virtual,
        name: name.to_string(),
        index,
        mtu,
        qdisc: configured_qdisc(sys::qdiscs(index)),
    })
}

/// Whether the interface has a carrier (`/sys/class/net/IF/carrier`; `None` when unreadable,
/// as for an interface that is administratively down).
pub fn carrier(name: &str) -> Option<bool> {
    std::fs::read_to_string(format!("/sys/class/net/{name}/carrier"))
        .ok()
        .map(|s| s.trim() == "1")
}

/// Waits (at most `wait`, as a NIC's link comes up after `ip link set up`) for a carrier, and
/// refuses an interface that has none: nothing sent there arrives anywhere.
///
/// # Errors
/// A message naming the interface.
pub fn wait_for_carrier(name: &str, wait: std::time::Duration) -> Result<(), String> {
    let end = std::time::Instant::now() + wait;
    loop {
        match carrier(name) {
            Some(true) => return Ok(()),
            _ if std::time::Instant::now() < end => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Some(false) => {
                return Err(format!(
                    "{name} has no carrier (link down) after {:.0} s: check the cable, the link \
                     partner, or for a veth pair that its peer is up",
                    wait.as_secs_f64()
                ))
            }
            None => return Err(format!("{name} is down: `ip link set {name} up` first")),
        }
    }
}

/// The qdiscs that only queue (the kernel's defaults): bypassing them changes only the speed.
const PLAIN_QDISCS: &[&str] = &[
    "noqueue",
    "noop",
    "pfifo_fast",
    "pfifo",
    "bfifo",
    "mq",
    "fq_codel",
    "fq",
];

/// The first transmit qdisc that does more than queue, `unknown` when the list could not be
/// read (sending through the qdisc is then the safe choice), `None` for plain queues only.
fn configured_qdisc(list: std::io::Result<Vec<sys::Qdisc>>) -> Option<String> {
    match list {
        Ok(l) => l
            .into_iter()
            .map(|q| q.kind)
            .find(|k| !PLAIN_QDISCS.contains(&k.as_str())),
        Err(_) => Some("unknown".into()),
    }
}

/// Refuses an interface with a global address, and one whose addresses cannot be read (the
/// guard fails closed: baser cannot tell it is a dedicated test port).
fn refuse_global(name: &str, addresses: std::io::Result<Vec<IpAddr>>) -> Result<(), String> {
    let addresses = addresses.map_err(|e| {
        format!(
            "cannot read the addresses of {name} ({e}): baser sends raw test frames only to a \
             dedicated test port and cannot tell that {name} is one; use --force if it is"
        )
    })?;
    let globals: Vec<String> = addresses
        .into_iter()
        .filter(is_global)
        .map(|a| a.to_string())
        .collect();
    if globals.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{name} has a global address ({}): baser sends raw test frames only to a dedicated \
         test port; use --force if {name} really is one",
        globals.join(", ")
    ))
}

/// Addresses that reach beyond the link: not loopback, link-local or multicast.
fn is_global(a: &IpAddr) -> bool {
    match a {
        IpAddr::V4(v) => !(v.is_loopback() || v.is_link_local() || v.is_multicast()),
        IpAddr::V6(v) => {
            let link_local = (v.segments()[0] & 0xffc0) == 0xfe80;
            !(v.is_loopback() || link_local || v.is_multicast() || v.is_unspecified())
        }
    }
}

/// The default route through `name`, if any (IPv4 `/proc/net/route`, IPv6
/// `/proc/net/ipv6_route`).
pub fn default_route_on(name: &str) -> Option<String> {
    if let Ok(t) = std::fs::read_to_string("/proc/net/route") {
        for l in t.lines().skip(1) {
            let f: Vec<&str> = l.split_whitespace().collect();
            if let [iface, dest, _gw, _flags, _, _, _, mask, ..] = f.as_slice() {
                if *iface == name && *dest == "00000000" && *mask == "00000000" {
                    return Some("IPv4 0.0.0.0/0".into());
                }
            }
        }
    }
    if let Ok(t) = std::fs::read_to_string("/proc/net/ipv6_route") {
        for l in t.lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if let (Some(dest), Some(len), Some(iface)) = (f.first(), f.get(1), f.last()) {
                if *iface == name && dest.bytes().all(|b| b == b'0') && *len == "00" {
                    return Some("IPv6 ::/0".into());
                }
            }
        }
    }
    None
}

/// A snapshot of an interface's counters.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// `/sys/class/net/IF/statistics/*`.
    pub sysfs: BTreeMap<String, u64>,
    /// `ethtool -S IF` (empty when ethtool is missing or the driver has none).
    pub ethtool: BTreeMap<String, u64>,
}

impl Counters {
    /// Reads them now.
    pub fn read(name: &str) -> Self {
        let mut sysfs = BTreeMap::new();
        if let Ok(dir) = std::fs::read_dir(format!("/sys/class/net/{name}/statistics")) {
            for e in dir.flatten() {
                let v = std::fs::read_to_string(e.path())
                    .ok()
                    .and_then(|s| s.trim().parse().ok());
                if let (Some(v), Some(k)) = (v, e.file_name().to_str()) {
                    sysfs.insert(k.to_string(), v);
                }
            }
        }
        let mut ethtool = BTreeMap::new();
        if let Ok(o) = Command::new("ethtool").arg("-S").arg(name).output() {
            for l in String::from_utf8_lossy(&o.stdout).lines() {
                if let Some((k, v)) = l.trim().rsplit_once(':') {
                    if let Ok(v) = v.trim().parse() {
                        ethtool.insert(k.trim().to_string(), v);
                    }
                }
            }
        }
        Self { sysfs, ethtool }
    }

    /// The counters that changed from `before` to `self`, `sysfs:` or `ethtool:` prefixed.
    pub fn delta(&self, before: &Self) -> BTreeMap<String, i128> {
        let mut d = BTreeMap::new();
        for (src, now, then) in [
            ("sysfs", &self.sysfs, &before.sysfs),
            ("ethtool", &self.ethtool, &before.ethtool),
        ] {
            for (k, &v) in now {
                let old = then.get(k).copied().unwrap_or(0);
                if v != old {
                    d.insert(format!("{src}:{k}"), i128::from(v) - i128::from(old));
                }
            }
        }
        d
    }
}

/// Counters sampled during a run: those of [`ERROR_COUNTERS`] and the drop counters (a
/// frame the interface could not take or pass on).
pub const WATCHED_COUNTERS: [&str; 12] = [
    "sysfs:rx_crc_errors",
    "sysfs:rx_length_errors",
    "sysfs:rx_frame_errors",
    "sysfs:rx_errors",
    "sysfs:rx_missed_errors",
    "sysfs:rx_over_errors",
    "sysfs:rx_dropped",
    "sysfs:tx_dropped",
    "sysfs:tx_errors",
    "ethtool:rx_crc_errors",
    "ethtool:rx_length_errors",
    "ethtool:rx_missed_errors",
];

/// A time span of a run in which watched counters of an interface moved.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterMove {
    /// Sample before the move, ns since the epoch.
    pub from_ns: i64,
    /// Sample after it.
    pub to_ns: i64,
    /// The watched counters that changed, by how much.
    pub deltas: BTreeMap<String, i128>,
}

/// The spans between consecutive samples `(time, counters)` in which a counter of `watched`
/// changed (a counter that appears only later counts from 0).
pub fn counter_moves(samples: &[(i64, Counters)], watched: &[&str]) -> Vec<CounterMove> {
    samples
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (&w[0], &w[1]);
            let deltas: BTreeMap<String, i128> =
                b.1.delta(&a.1)
                    .into_iter()
                    .filter(|(k, _)| watched.contains(&k.as_str()))
                    .collect();
            (!deltas.is_empty()).then_some(CounterMove {
                from_ns: a.0,
                to_ns: b.0,
                deltas,
            })
        })
        .collect()
}

/// Counters that mean frames arrived damaged (FCS, length, alignment, missed by the NIC).
pub const ERROR_COUNTERS: [&str; 8] = [
    "sysfs:rx_crc_errors",
    "sysfs:rx_length_errors",
    "sysfs:rx_frame_errors",
    "sysfs:rx_errors",
    "sysfs:rx_missed_errors",
    "sysfs:rx_over_errors",
    "ethtool:rx_crc_errors",
    "ethtool:rx_length_errors",
];

/// An offload feature as `ethtool -k` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// On.
    On,
    /// Off, can be switched on.
    Off,
    /// Off and fixed (the driver cannot do it).
    Fixed,
    /// ethtool is missing or does not list it.
    Unknown,
}

/// The state of feature `feature` (e.g. `rx-all`, `rx-fcs`) on `name`.
pub fn feature(name: &str, feature: &str) -> Feature {
    let Ok(o) = Command::new("ethtool").arg("-k").arg(name).output() else {
        return Feature::Unknown;
    };
    let text = String::from_utf8_lossy(&o.stdout);
    for l in text.lines() {
        if let Some(rest) = l
            .trim()
            .strip_prefix(feature)
            .and_then(|r| r.strip_prefix(':'))
        {
            let r = rest.trim();
            return match (r.starts_with("on"), r.contains("[fixed]")) {
                (true, _) => Feature::On,
                (false, true) => Feature::Fixed,
                (false, false) => Feature::Off,
            };
        }
    }
    Feature::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_guard_fails_closed() {
        let err = std::io::Error::other("getifaddrs failed");
        let m = refuse_global("baser0", Err(err)).unwrap_err();
        assert!(m.contains("cannot read the addresses of baser0"), "{m}");
        let link = "fe80::1".parse().unwrap();
        assert!(refuse_global("baser0", Ok(vec![link])).is_ok());
        let global = "192.0.2.1".parse().unwrap();
        let m = refuse_global("baser0", Ok(vec![link, global])).unwrap_err();
        assert!(m.contains("global address (192.0.2.1)"), "{m}");
    }

    #[test]
    fn link_local_and_loopback_addresses_are_not_global() {
        let g = |s: &str| is_global(&s.parse().unwrap());
        assert!(g("192.168.1.2") && g("10.0.0.1") && g("2001:db8::1") && g("fd00::1"));
        assert!(!g("127.0.0.1") && !g("169.254.3.4") && !g("fe80::1") && !g("::1"));
    }

    #[test]
    fn a_missing_interface_is_named_in_the_refusal() {
        let e = check("bsr-no-such0", false).unwrap_err();
        assert!(e.starts_with("no interface named \"bsr-no-such0\""), "{e}");
    }

    #[test]
    fn counter_deltas_list_only_changes() {
        let mut a = Counters::default();
        a.sysfs.insert("rx_packets".into(), 10);
        a.sysfs.insert("rx_crc_errors".into(), 1);
        let mut b = a.clone();
        b.sysfs.insert("rx_packets".into(), 15);
        b.ethtool.insert("rx_crc_errors".into(), 2);
        let samples = [
            (10, a.clone()),
            (20, a.clone()),
            (30, b.clone()),
            (40, b.clone()),
        ];
        let moves = counter_moves(&samples, &WATCHED_COUNTERS);
        assert_eq!(moves.len(), 1);
        assert_eq!((moves[0].from_ns, moves[0].to_ns), (20, 30));
        assert_eq!(moves[0].deltas["ethtool:rx_crc_errors"], 2);
        assert!(counter_moves(&samples, &["sysfs:tx_dropped"]).is_empty());
        let d = b.delta(&a);
        assert_eq!(d.len(), 2);
        assert_eq!(d["sysfs:rx_packets"], 5);
        assert_eq!(d["ethtool:rx_crc_errors"], 2);
    }
}
