//! crates/runtime/src/svm.rs's unit tests.

use hsaemu_runtime::error::HsaError;
use hsaemu_runtime::internals::{COARSE_GRAINED, FINE_GRAINED, INDETERMINATE};
use hsaemu_runtime::pages::{Pages, PAGE_SIZE};
use hsaemu_runtime::svm::*;

const CPU: u64 = 0x100;
const GPU: u64 = 0x200;

fn kind(a: u64) -> Option<bool> {
    match a {
        CPU => Some(true),
        GPU => Some(false),
        _ => None,
    }
}

#[test]
fn attributes_are_validated_in_order_and_kept_per_page_range() {
    let pages = Pages::new(4 * PAGE_SIZE).expect("map");
    let p = pages.addr();
    let page = PAGE_SIZE as u64;
    let mut m = SvmMap::default();
    let mut q = [(attrib::GLOBAL_FLAG, 9), (attrib::ACCESS_QUERY, GPU)];
    m.get(p, 4 * page, &mut q, &kind, CPU).expect("get");
    assert_eq!(
        q,
        [
            (attrib::GLOBAL_FLAG, FINE_GRAINED),
            (attrib::AGENT_ACCESSIBLE, GPU)
        ]
    );
    // Coarse-grained and no GPU access on the middle two pages only.
    m.set(
        p + page + 10,
        page,
        &[
            (attrib::GLOBAL_FLAG, COARSE_GRAINED),
            (attrib::AGENT_NO_ACCESS, GPU),
        ],
        &kind,
    )
    .expect("set");
    let mut q = [(attrib::GLOBAL_FLAG, 0), (attrib::ACCESS_QUERY, GPU)];
    m.get(p + page, 2 * page, &mut q, &kind, CPU).expect("get");
    assert_eq!(
        q,
        [
            (attrib::GLOBAL_FLAG, COARSE_GRAINED),
            (attrib::AGENT_NO_ACCESS, GPU)
        ]
    );
    let mut q = [(attrib::GLOBAL_FLAG, 0)];
    m.get(p, 4 * page, &mut q, &kind, CPU).expect("get");
    assert_eq!(q, [(attrib::GLOBAL_FLAG, INDETERMINATE)]);
    // ROCr's statuses: repeated attribute or agent, bad agent, bad value, unknown attribute,
    // and the driver's refusal of an empty range.
    let set = |m: &mut SvmMap, pairs: &[(u32, u64)]| m.set(p, page, pairs, &kind);
    assert_eq!(
        set(&mut m, &[(attrib::READ_ONLY, 1), (attrib::READ_ONLY, 0)]),
        Err(HsaError::IncompatibleArguments)
    );
    assert_eq!(
        set(
            &mut m,
            &[
                (attrib::AGENT_ACCESSIBLE, GPU),
                (attrib::AGENT_NO_ACCESS, GPU)
            ]
        ),
        Err(HsaError::IncompatibleArguments)
    );
    assert_eq!(
        set(&mut m, &[(attrib::AGENT_ACCESSIBLE, 7)]),
        Err(HsaError::InvalidAgent)
    );
    assert_eq!(
        set(&mut m, &[(attrib::GLOBAL_FLAG, 5)]),
        Err(HsaError::InvalidArgument)
    );
    assert_eq!(
        set(&mut m, &[(attrib::PREFETCH_LOCATION, GPU)]),
        Err(HsaError::InvalidArgument)
    );
    assert_eq!(m.set(p, 0, &[], &kind), Err(HsaError::Error));
    // A range running past the mapped pages, and a wild size (2^60 bytes: the test of its
    // pages once allocated a byte per page, and the process died), are the same refusal.
    assert_eq!(m.set(p, 1 << 30, &[], &kind), Err(HsaError::Error));
    assert_eq!(m.set(p, 1 << 60, &[], &kind), Err(HsaError::Error));
    let mut q = [(attrib::READ_ONLY, 0)];
    assert_eq!(m.get(p, 1 << 60, &mut q, &kind, CPU), Err(HsaError::Error));
    // A failed set changes nothing.
    let mut q = [(attrib::READ_ONLY, 0)];
    m.get(p, page, &mut q, &kind, CPU).expect("get");
    assert_eq!(q[0].1, 0);
    m.prefetched(p, page, GPU).expect("prefetch");
    let mut q = [(attrib::PREFETCH_LOCATION, 0)];
    m.get(p, page, &mut q, &kind, CPU).expect("get");
    assert_eq!(q[0].1, GPU);
    m.get(p + page, page, &mut q, &kind, CPU).expect("get");
    assert_eq!(q[0].1, CPU);
}
