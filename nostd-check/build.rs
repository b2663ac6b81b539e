//! Links the C runtime: the binary has no `std`, so nothing else brings in `libc`'s start
//! files that call `main`.
fn main() {
    println!("cargo:rustc-link-arg-bins=-lc");
}
