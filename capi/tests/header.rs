//! include/baser.h is what cbindgen makes of src/lib.rs today: a stale header fails here.
//! `BASER_BLESS=1 cargo test --test header` writes it anew.

#[test]
fn the_checked_in_header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut made);
    let path = format!("{dir}/include/baser.h");
    if std::env::var_os("BASER_BLESS").is_some() {
        std::fs::write(&path, &made).expect("write include/baser.h");
    }
    let have = std::fs::read(&path).unwrap_or_default();
    assert!(
        have == made,
        "capi/include/baser.h is stale (src/lib.rs changed): run `BASER_BLESS=1 cargo test --test header` in capi/ and commit it"
    );
    for f in [
        "baser_tx_new",
        "baser_check_finish",
        "BASER_E_INTERNAL",
        "typedef struct baser_tx baser_tx",
    ] {
        assert!(
            String::from_utf8_lossy(&made).contains(f),
            "{f} missing from the header"
        );
    }
}
