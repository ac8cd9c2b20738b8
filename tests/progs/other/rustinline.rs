// rustinline [ROUNDS]: Rust's inlined frames on --call-graph dwarf stacks,
// for the rust_inline test: leaf() burns the CPU, called from mid(),
// inlined into top(), inlined into main; opaque() (std::hint::black_box
// is not stable in Debian 12's rustc 1.63) inlined into leaf() and mid().
// rustc puts every function inside the namespace DIE of its module.

#[inline(always)]
fn opaque(x: u64) -> u64 {
    unsafe { std::ptr::read_volatile(&x) }
}

#[inline(never)]
fn leaf(n: u64) -> u64 {
    let mut x = opaque(1);
    for _ in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    x
}

#[inline(always)]
fn mid(n: u64) -> u64 {
    leaf(n) ^ opaque(n)
}

#[inline(always)]
fn top(n: u64) -> u64 {
    mid(n).rotate_left(3)
}

fn main() {
    let rounds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut s = 0;
    for i in 0..rounds {
        s ^= top(1000000 + i);
    }
    println!("{}", s);
}
