// rustwork [ROUNDS]: Rust names for the demangling test (built with the
// legacy and the v0 mangling): the work is in rustwork::spin_here, called
// from the method rustwork::inner::Thing::work.
#[inline(never)]
fn spin_here(n: u64) -> u64 {
    let mut x = std::hint::black_box(1u64);
    for _ in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    x
}

mod inner {
    pub struct Thing;
    impl Thing {
        #[inline(never)]
        pub fn work(&self, n: u64) -> u64 {
            super::spin_here(n) ^ std::hint::black_box(1)
        }
    }
}

fn main() {
    let t = inner::Thing;
    let rounds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut s = 0;
    for _ in 0..rounds {
        s ^= t.work(1000000);
    }
    std::hint::black_box(s);
}
