//! crates/runtime/src/pages.rs's unit tests.

use hsaemu_runtime::pages::*;

#[test]
fn page_box_is_page_aligned_zeroed_and_drops_its_value() {
    let b = PageBox::new([7u64; 3]).expect("map");
    assert_eq!(b.addr() % PAGE_SIZE as u64, 0);
    assert_eq!(*b, [7, 7, 7]);
    let p = Pages::new(10_000).expect("map");
    assert_eq!(p.len(), 3 * PAGE_SIZE);
    // SAFETY: the mapping has `len` readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p.as_ptr(), p.len()) };
    assert!(bytes.iter().all(|&b| b == 0));
}
