//! Formerly hsaemu-codeobject's unit tests of src/bundle.rs (docs/notes/ci-time.md, "Round 38").

use std::borrow::Cow;

use hsaemu_codeobject::bundle::*;
use hsaemu_codeobject::Error;

#[test]
fn entry_ids() {
    let (k, t, id) = parse_entry_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
    assert_eq!(
        (k, t.as_str(), id.as_deref()),
        (
            OffloadKind::HipV4,
            "amdgcn-amd-amdhsa-",
            Some("gfx90a:xnack-")
        )
    );
    let (k, t, id) = parse_entry_id("host-x86_64-unknown-linux");
    assert_eq!(
        (k, t.as_str(), id),
        (OffloadKind::Host, "x86_64-unknown-linux", None)
    );
    let (_, _, id) = parse_entry_id("hip-amdgcn-amd-amdhsa--gfx10-3-generic");
    assert_eq!(id.as_deref(), Some("gfx10-3-generic"));
    let (_, t, id) = parse_entry_id("hip-amdgcn-amd-amdhsa-gfx906+xnack");
    assert_eq!(
        (t.as_str(), id.as_deref()),
        ("amdgcn-amd-amdhsa", Some("gfx906+xnack"))
    );
}

fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut head = BUNDLE_MAGIC.to_vec();
    head.extend((entries.len() as u64).to_le_bytes());
    let header_len: usize = 32 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let mut off = header_len as u64;
    let mut body: Vec<u8> = Vec::new();
    for (id, data) in entries {
        head.extend(off.to_le_bytes());
        head.extend((data.len() as u64).to_le_bytes());
        head.extend((id.len() as u64).to_le_bytes());
        head.extend(id.as_bytes());
        body.extend(*data);
        off += data.len() as u64;
    }
    head.extend(body);
    head
}

#[test]
fn uncompressed_and_compressed_round_trip() {
    let b = bundle(&[
        ("host-x86_64-unknown-linux", b""),
        ("hipv4-amdgcn-amd-amdhsa--gfx906", b"abcdef"),
    ]);
    let e = unbundle(&b).expect("parses");
    assert_eq!(e.len(), 2);
    assert_eq!(&*e[1].data, b"abcdef");
    assert_eq!(
        e[1].target.as_ref().map(|t| t.canonical()),
        Some("gfx906".to_string())
    );
    // CCOB v2 with zlib, twice in a row.
    let c = ccob(&b, 2, 0);
    let two = [c.clone(), c].concat();
    let all = unbundle_all(&two).expect("parses");
    assert_eq!(all.len(), 4);
    assert_eq!(&*all[3].data, b"abcdef");
}

/// The bundle of the compressed-bundle tests.
fn three_entries() -> Vec<u8> {
    bundle(&[
        ("host-x86_64-unknown-linux", b""),
        (
            "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
            b"\x7fELF-not-really",
        ),
        ("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", &[7u8; 5000]),
    ])
}

/// `three_entries()` compressed by the reference zstd, not by the decoder's library:
/// `zstd -3 --no-check` (no content checksum, like clang-offload-bundler's `--compress`),
/// and with `--check` (a content checksum).
const ZSTD_FRAME: &[u8] = include_bytes!("testdata/bundle3.zst");
const ZSTD_FRAME_CHECKSUM: &[u8] = include_bytes!("testdata/bundle3-checksum.zst");

/// A CCOB of `bundle` with header `version` (1..=3) and `method` (0 zlib, 1 zstd: only
/// of `three_entries()`).
fn ccob(bundle: &[u8], version: u16, method: u16) -> Vec<u8> {
    let payload = if method == 0 {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut z, bundle).expect("compress");
        z.finish().expect("compress")
    } else {
        assert_eq!(
            bundle,
            three_entries(),
            "the zstd frame is of three_entries() only"
        );
        ZSTD_FRAME.to_vec()
    };
    ccob_header(bundle.len(), version, method, &payload)
}

/// A CCOB header `version` (1..=3), `method`, for a bundle of `len` bytes, and `payload`.
fn ccob_header(len: usize, version: u16, method: u16, payload: &[u8]) -> Vec<u8> {
    let mut c = b"CCOB".to_vec();
    c.extend(version.to_le_bytes());
    c.extend(method.to_le_bytes());
    match version {
        1 => c.extend((len as u32).to_le_bytes()),
        2 => {
            c.extend(((24 + payload.len()) as u32).to_le_bytes());
            c.extend((len as u32).to_le_bytes());
        }
        _ => {
            c.extend(((32 + payload.len()) as u64).to_le_bytes());
            c.extend((len as u64).to_le_bytes());
        }
    }
    c.extend(0x1234_5678_9abc_def0u64.to_le_bytes()); // hash (not checked)
    c.extend(payload);
    c
}

#[test]
fn every_compressed_header_version_and_method() {
    let b = three_entries();
    let plain = unbundle(&b).expect("plain bundle");
    for version in 1..=3 {
        for method in 0..=1 {
            let c = ccob(&b, version, method);
            let e = unbundle(&c).unwrap_or_else(|e| panic!("v{version} m{method}: {e}"));
            assert_eq!(
                e,
                plain
                    .iter()
                    .map(|x| BundleEntry {
                        data: Cow::Owned(x.data.to_vec()),
                        ..x.clone()
                    })
                    .collect::<Vec<_>>()
            );
            assert_eq!(
                e[2].target.as_ref().map(|t| t.processor().to_string()),
                Some("gfx10-3-generic".into())
            );
            // Two in a row (v1 records no size: found by scanning for the next magic).
            let two = [c.clone(), vec![0; 13], c.clone()].concat();
            assert_eq!(
                unbundle_all(&two).expect("two bundles").len(),
                6,
                "v{version} m{method}"
            );
            // A wrong uncompressed size is an error, not a short or long read.
            let mut bad = c.clone();
            let at = if version == 3 {
                16
            } else if version == 2 {
                12
            } else {
                8
            };
            bad[at] ^= 1;
            assert!(
                matches!(unbundle(&bad), Err(Error::Decompress { .. })),
                "v{version} m{method}"
            );
        }
    }
}

#[test]
fn a_zstd_content_checksum_is_checked() {
    let b = three_entries();
    let mut c = ccob_header(b.len(), 2, 1, ZSTD_FRAME_CHECKSUM);
    let e = unbundle(&c).expect("checksum matches");
    assert_eq!(e.len(), 3);
    assert_eq!(&*e[2].data, &[7u8; 5000][..]);
    let last = c.len() - 1;
    c[last] ^= 0x40; // the checksum's top byte
    let e = unbundle(&c).expect_err("wrong checksum");
    assert!(
        matches!(&e, Error::Decompress { reason, .. } if reason.contains("checksum")),
        "{e}"
    );
}

#[test]
fn lying_headers_are_errors() {
    let mut b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx906", b"abcdef")]);
    b[24] = 0xff; // entry count
    assert!(matches!(
        unbundle(&b),
        Err(Error::Bundle { offset: 24, .. })
    ));
    let mut c = b"CCOB".to_vec();
    c.extend(3u16.to_le_bytes());
    c.extend(1u16.to_le_bytes());
    c.extend(32u64.to_le_bytes());
    c.extend(u64::MAX.to_le_bytes());
    c.extend(0u64.to_le_bytes());
    assert!(matches!(unbundle(&c), Err(Error::Decompress { .. })));
}
