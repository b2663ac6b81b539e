//! 25GBASE-R with RS-FEC through the C ABI (tests/fec.c, compiled as a C user builds it): a TX
//! model's RS-FEC line decodes back through the RX model and the checker with no uncorrected
//! codeword, and bad `rate=`/`fec=`/`rs_marker_period=` options are refused by name.

use std::process::Command;

mod common;

#[test]
fn an_rs_fec_line_decodes_back_through_the_rx_model_and_the_checker() {
    let exe = common::build_c("tests/fec.c", "fec");
    let out = Command::new(&exe).output().expect("run tests/fec.c");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout, "fec: 40 frames through RS-FEC at 25G, PASS\n",
        "{stderr}"
    );
}
