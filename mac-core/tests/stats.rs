//! Every Clause 30 statistic of the MAC, a frame of each kind through `MacTx` and `MacRx`,
//! counted by hand; the `--fcs-included` path, `MacTx::reset` and an IFG below 8.

use mac_core::control::MacControl;
use mac_core::frame::fcs;
use mac_core::rx::{MacRx, RxClass, RxConfig};
use mac_core::tx::{MacTx, TxConfig};
use pcs_core::{ControlChar, XgmiiWord};

const UNICAST: [u8; 6] = [0x02, 0, 0, 0, 0, 1];
const MULTICAST: [u8; 6] = [0x01, 0x00, 0x5e, 0, 0, 1];
const BROADCAST: [u8; 6] = [0xff; 6];
const SA: [u8; 6] = [0x02, 0, 0, 0, 0, 2];

fn frame(da: [u8; 6], ether_type: u16, len: usize) -> Vec<u8> {
    let mut f = Vec::with_capacity(len);
    f.extend_from_slice(&da);
    f.extend_from_slice(&SA);
    f.extend_from_slice(&ether_type.to_be_bytes());
    while f.len() < len {
        f.push(f.len() as u8);
    }
    f
}

fn vlan(len: usize) -> Vec<u8> {
    let mut f = frame(UNICAST, 0x8100, 18);
    f.truncate(14);
    f.extend_from_slice(&[0x00, 0x05, 0x08, 0x00]);
    while f.len() < len {
        f.push(f.len() as u8);
    }
    f
}

fn control(c: MacControl) -> Vec<u8> {
    let mut f = vec![0u8; 60];
    let n = c.write(SA, &mut f).unwrap();
    f.truncate(n);
    f
}

/// Sends frames through a MacTx; returns the transfers (with idles after).
fn send(tx: &mut MacTx, frames: &[Vec<u8>]) -> Vec<XgmiiWord> {
    let mut words = Vec::new();
    for f in frames {
        let mut buf = vec![XgmiiWord::IDLE; tx.words_needed(f.len()) + 2];
        let n = tx.encode_frame(f, &mut buf).unwrap();
        assert!(n > 0);
        words.extend_from_slice(&buf[..n]);
    }
    words.extend([XgmiiWord::IDLE; 4]);
    words
}

#[test]
fn tx_statistics_count_each_kind_of_frame() {
    let pause = control(MacControl::Pause { quanta: 0xffff });
    let pfc = control(MacControl::Pfc {
        class_enable: 0x81,
        timers: [1, 0, 0, 0, 0, 0, 0, 2],
    });
    let frames = vec![
        frame(UNICAST, 0x0800, 100),
        frame(MULTICAST, 0x0800, 100),
        frame(BROADCAST, 0x0806, 60),
        vlan(100),
        frame(UNICAST, 0x0800, 20), // padded to 60
        pause,
        pfc,
    ];
    let mut tx = MacTx::new(TxConfig::default());
    send(&mut tx, &frames);
    let s = tx.stats();
    assert_eq!(s.frames_transmitted_ok, 7);
    // DA through FCS: 100 + 100 + 60 + 100 + 60 (padded) + 60 + 60, plus 4 FCS each.
    assert_eq!(s.octets_transmitted_ok, 540 + 7 * 4);
    // PAUSE and PFC go to 01-80-C2-00-00-01, a multicast address.
    assert_eq!(s.multicast_frames_xmitted_ok, 3);
    assert_eq!(s.broadcast_frames_xmitted_ok, 1);
    assert_eq!(s.vlan_tagged_frames_transmitted, 1);
    assert_eq!(s.frames_padded, 1);
    assert_eq!(s.mac_control_frames_transmitted, 2);
    assert_eq!(s.pause_mac_ctrl_frames_transmitted, 1);
    assert_eq!(s.pfc_frames_transmitted, 1);
    assert_eq!(s.frames_lost_due_to_int_mac_xmit_error, 0);
    let mut buf = vec![XgmiiWord::IDLE; 32];
    tx.encode_aborted(&frame(UNICAST, 0x0800, 100), &mut buf)
        .unwrap();
    assert_eq!(tx.stats().frames_lost_due_to_int_mac_xmit_error, 1);
    assert_eq!(tx.stats().frames_transmitted_ok, 7);
}

#[test]
fn rx_statistics_count_each_class_and_kind() {
    let pause = control(MacControl::Pause { quanta: 7 });
    let good = vec![
        frame(UNICAST, 0x0800, 100),
        frame(MULTICAST, 0x0800, 100),
        frame(BROADCAST, 0x0806, 60),
        vlan(100),
        pause,
    ];
    let mut tx = MacTx::new(TxConfig::default());
    let mut words = send(&mut tx, &good);
    // A frame with a bad FCS: one data octet flipped in flight.
    let mut bad = send(&mut tx, &[frame(UNICAST, 0x0800, 100)]);
    let at = bad.iter().position(|w| w.ctrl == 0).unwrap() + 3;
    bad[at].data ^= 0x10;
    words.extend(bad);
    // A frame too long for the 1518 limit.
    words.extend(send(&mut tx, &[frame(UNICAST, 0x0800, 1600)]));
    // A runt with a good FCS (sent unpadded with its own FCS).
    let mut runt = frame(UNICAST, 0x0800, 30);
    runt.extend_from_slice(&fcs(&runt).to_le_bytes());
    let mut buf = vec![XgmiiWord::IDLE; 16];
    let n = tx.encode_frame_with_fcs(&runt, &mut buf).unwrap();
    words.extend_from_slice(&buf[..n]);
    words.extend([XgmiiWord::IDLE; 2]);
    // An /E/ inside a frame (an abort).
    let n = tx
        .encode_aborted(&frame(UNICAST, 0x0800, 100), &mut buf)
        .unwrap();
    words.extend_from_slice(&buf[..n]);
    words.extend([XgmiiWord::IDLE; 2]);
    let mut rx: MacRx = MacRx::new(RxConfig::default());
    let mut classes = Vec::new();
    rx.push_slice(&words, |f| classes.push(f.class));
    assert_eq!(
        classes,
        [
            RxClass::Ok,
            RxClass::Ok,
            RxClass::Ok,
            RxClass::Ok,
            RxClass::Ok,
            RxClass::FrameCheckSequenceError,
            RxClass::FrameTooLong,
            RxClass::Runt,
            RxClass::ErrorCharacter,
        ]
    );
    let s = rx.stats();
    assert_eq!(s.starts, 9);
    assert_eq!(s.frames_received_ok, 5);
    assert_eq!(s.octets_received_ok, 100 + 100 + 60 + 100 + 60 + 5 * 4);
    // The PAUSE frame's DA is multicast too.
    assert_eq!(s.multicast_frames_received_ok, 2);
    assert_eq!(s.broadcast_frames_received_ok, 1);
    assert_eq!(s.vlan_tagged_frames_received_ok, 1);
    assert_eq!(s.mac_control_frames_received, 1);
    assert_eq!(s.pause_mac_ctrl_frames_received, 1);
    assert_eq!(s.frame_check_sequence_errors, 1);
    assert_eq!(s.frame_too_long_errors, 1);
    assert_eq!(s.undersize_frames, 1);
    assert_eq!(s.symbol_error_frames, 1);
    assert_eq!(s.frames_received_bad, 4);
}

#[test]
fn a_frame_with_its_fcs_is_sent_as_captured() {
    let f = frame(UNICAST, 0x0800, 64);
    let good = fcs(&f).to_le_bytes();
    for (tail, class) in [
        (good, RxClass::Ok),
        (
            [good[0] ^ 1, good[1], good[2], good[3]],
            RxClass::FrameCheckSequenceError,
        ),
    ] {
        let mut with = f.clone();
        with.extend_from_slice(&tail);
        let mut tx = MacTx::new(TxConfig::default());
        let mut buf = vec![XgmiiWord::IDLE; tx.words_needed(with.len()) + 2];
        let n = tx.encode_frame_with_fcs(&with, &mut buf).unwrap();
        assert!(n >= 9, "{n} transfers");
        // The FCS octets on the wire are the captured ones, not recomputed.
        let octets: Vec<u8> = buf[..n]
            .iter()
            .flat_map(|w| (0..8).filter(|&l| !w.is_control(l)).map(|l| w.octet(l)))
            .collect();
        assert_eq!(&octets[octets.len() - 4..], &tail);
        let mut rx: MacRx = MacRx::new(RxConfig::default());
        let mut got = Vec::new();
        buf.truncate(n);
        buf.extend([XgmiiWord::IDLE; 2]);
        rx.push_slice(&buf, |r| got.push((r.class, r.data.to_vec())));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, class);
        assert_eq!(got[0].1, with);
        assert_eq!(tx.stats().frames_padded, 0);
    }
}

#[test]
fn reset_forgets_the_gap_owed_and_the_deficit() {
    let mut tx = MacTx::new(TxConfig::default());
    // 61 octets: the /T/ lands mid-transfer, the gap is owed into the next transfer and the
    // deficit idle count moves.
    send(&mut tx, &[frame(UNICAST, 0x0800, 61)]);
    let mut buf = vec![XgmiiWord::IDLE; 16];
    tx.encode_frame(&frame(UNICAST, 0x0800, 61), &mut buf)
        .unwrap();
    assert!(tx.owed_idle_octets() > 0 || tx.deficit_idle_count() > 0);
    assert!(tx.last_gap_octets().is_some());
    tx.reset();
    assert_eq!(tx.owed_idle_octets(), 0);
    assert_eq!(tx.deficit_idle_count(), 0);
    assert_eq!(tx.last_gap_octets(), None);
    // After reset the next frame starts in lane 0 of the first transfer.
    let n = tx
        .encode_frame(&frame(UNICAST, 0x0800, 60), &mut buf)
        .unwrap();
    assert!(n > 0);
    assert!(buf[0].is_control(0) && buf[0].octet(0) == ControlChar::START.0);
}

#[test]
fn an_ifg_below_8_still_puts_the_start_in_a_later_transfer() {
    for ifg in [1u16, 4, 5, 7] {
        let mut tx = MacTx::new(TxConfig {
            ifg_octets: ifg,
            ..TxConfig::default()
        });
        let words = send(
            &mut tx,
            &[frame(UNICAST, 0x0800, 60), frame(UNICAST, 0x0800, 60)],
        );
        let is =
            |w: &XgmiiWord, c: ControlChar| (0..8).find(|&l| w.is_control(l) && w.octet(l) == c.0);
        let t = words
            .iter()
            .position(|w| is(w, ControlChar::TERMINATE).is_some())
            .unwrap();
        let s = words
            .iter()
            .rposition(|w| is(w, ControlChar::START).is_some())
            .unwrap();
        assert!(s > t, "IFG {ifg}: /S/ in transfer {s}, /T/ in {t}");
        let gap = (s * 8 + is(&words[s], ControlChar::START).unwrap())
            - (t * 8 + is(&words[t], ControlChar::TERMINATE).unwrap());
        assert!(gap >= usize::from(ifg), "IFG {ifg}: gap {gap}");
        // Both frames arrive.
        let mut rx: MacRx = MacRx::new(RxConfig::default());
        let mut n = 0;
        rx.push_slice(&words, |f| {
            assert_eq!(f.class, RxClass::Ok);
            n += 1;
        });
        assert_eq!(n, 2, "IFG {ifg}");
    }
}

/// Transfers from lanes: `Ok(data)` or `Err(control)`, padded with idles to whole transfers.
fn lanes(items: &[Result<u8, u8>]) -> Vec<XgmiiWord> {
    use pcs_core::Lane;
    let mut v: Vec<Lane> = items
        .iter()
        .map(|i| match *i {
            Ok(d) => Lane::Data(d),
            Err(c) => Lane::Control(ControlChar(c)),
        })
        .collect();
    while v.len() % 8 != 0 {
        v.push(Lane::Control(ControlChar::IDLE));
    }
    v.chunks(8)
        .map(|c| XgmiiWord::from_lanes(c.try_into().unwrap()))
        .collect()
}

/// `/S/`, preamble, SFD and `body` as data (no end).
fn started(body: &[u8]) -> Vec<Result<u8, u8>> {
    let mut v = vec![Err(0xfb)];
    v.extend([Ok(0x55); 6]);
    v.push(Ok(0xd5));
    v.extend(body.iter().map(|&b| Ok(b)));
    v
}

#[test]
fn rx_error_statistics_count_each_kind_of_bad_frame_once() {
    const T: Result<u8, u8> = Err(0xfd);
    const I: Result<u8, u8> = Err(0x07);
    let good = |len: usize| {
        let mut f = frame(UNICAST, 0x0800, len - 4);
        f.extend_from_slice(&fcs(&f).to_le_bytes());
        f
    };
    // Each frame from lane 0 of its own transfers.
    let mut words = Vec::new();
    // A fragment: 40 octets, bad FCS.
    let mut f = good(40);
    f[20] ^= 1;
    let mut items = started(&f);
    items.push(T);
    words.extend(lanes(&items));
    // A jabber: too long and a bad FCS.
    let mut f = good(1600);
    f[100] ^= 1;
    let mut items = started(&f);
    items.push(T);
    words.extend(lanes(&items));
    // Truncated: ended by an idle, no /T/.
    let mut items = started(&good(100));
    items.push(I);
    words.extend(lanes(&items));
    // A bad preamble: one preamble octet 0x54.
    let mut items = started(&good(100));
    items[3] = Ok(0x54);
    items.push(T);
    words.extend(lanes(&items));
    let mut rx: MacRx = MacRx::new(RxConfig::default());
    let mut classes = Vec::new();
    rx.push_slice(&words, |f| classes.push(f.class));
    rx.push_slice(&[XgmiiWord::IDLE; 2], |f| classes.push(f.class));
    assert_eq!(
        classes,
        [
            RxClass::Fragment,
            RxClass::FrameTooLong,
            RxClass::Truncated,
            RxClass::BadPreamble
        ]
    );
    let s = rx.stats();
    assert_eq!(s.starts, 4);
    assert_eq!(s.frames_received_ok, 0);
    assert_eq!(s.fragments, 1);
    assert_eq!(s.frame_too_long_errors, 1);
    assert_eq!(s.jabbers, 1);
    assert_eq!(s.truncated_frames, 1);
    assert_eq!(s.bad_preamble_frames, 1);
    assert_eq!(s.frame_check_sequence_errors, 0);
    assert_eq!(s.frames_received_bad, 4);
}

#[test]
fn encode_errors_say_what_was_needed() {
    use mac_core::tx::EncodeFrameError;
    assert_eq!(
        EncodeFrameError::BufferTooSmall { needed: 12 }.to_string(),
        "output buffer too small: 12 XGMII words needed"
    );
    let long = EncodeFrameError::FrameTooLong { len: 99_999 }.to_string();
    assert!(
        long.starts_with("frame of 99999 octets exceeds the model's "),
        "{long}"
    );
}

/// Gaps below the standard IFG, derived by hand from 46.3.1.4 and the reading that the /S/
/// goes in a later transfer than the /T/ (4 idles added until it does).
#[test]
fn gaps_below_the_standard_ifg_by_hand() {
    use mac_core::tx::DicMode;
    let one = |ifg: u16, dic: DicMode, len: usize| {
        let mut tx = MacTx::new(TxConfig {
            ifg_octets: ifg,
            dic,
            ..TxConfig::default()
        });
        let f = frame(UNICAST, 0x0800, len);
        let mut buf = vec![XgmiiWord::IDLE; tx.words_needed(f.len()) + 2];
        tx.encode_frame(&f, &mut buf).unwrap();
        (
            tx.last_gap_octets(),
            tx.deficit_idle_count(),
            tx.owed_idle_octets(),
        )
    };
    // IFG 1, no DIC, 67 octets with the FCS: /T/ in lane 3; 3 + 1 is in the same transfer,
    // so 4 idles are added: gap 5, the next /S/ in lane 0 of the next transfer.
    assert_eq!(one(1, DicMode::Off, 63), (Some(5), 0, 0));
    // IFG 2 with DIC, 68 octets: /T/ in lane 4; deleting 2 idles would leave none, so 2 are
    // inserted (gap 4) and the deficit stays 0.
    assert_eq!(one(2, DicMode::Strict, 64), (Some(4), 0, 0));
    // IFG 3 with DIC, /T/ in lane 4: delete (4 + 3) % 4 = 3 < 4 idles: gap 0 is not allowed;
    // 3 > 3 fails, so 1 is inserted: gap 4, deficit 0.
    assert_eq!(one(3, DicMode::Strict, 64), (Some(4), 0, 0));
}
