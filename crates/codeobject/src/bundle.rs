//! Clang offload bundles: uncompressed `__CLANG_OFFLOAD_BUNDLE__` bundles, compressed `CCOB`
//! bundles (header versions 1–3, zlib or zstd), entry IDs
//! (`hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`), and [`find_code_objects`], which accepts a code
//! object, a bundle, or a host ELF whose `.hip_fatbin` section holds one or more bundles.

use std::borrow::Cow;
use std::io::Read;

use object::elf;
use object::read::elf::{FileHeader, SectionHeader};
use object::LittleEndian as LE;

use crate::elf_consts::EM_AMDGPU;
use crate::error::{le_u16, le_u32, le_u64, slice, Error, Result};
use crate::target_id::TargetId;

/// Magic of an uncompressed bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed bundle.
pub const COMPRESSED_BUNDLE_MAGIC: &[u8; 4] = b"CCOB";
/// Largest decompressed bundle accepted.
pub const MAX_DECOMPRESSED_SIZE: u64 = 1 << 30;
/// Largest expansion ratio accepted for a compressed bundle (real code object bundles
/// compress well under 100:1; this bounds the memory a small hostile input can claim).
const MAX_RATIO: u64 = 256;

/// The offload kind of a bundle entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OffloadKind {
    Host,
    /// `hip`: code objects V2/V3.
    Hip,
    /// `hipv4`: code objects V4+.
    HipV4,
    OpenMp,
    Other(String),
}

/// One entry of a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleEntry<'a> {
    /// The whole entry ID, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`.
    pub id: String,
    pub kind: OffloadKind,
    /// The triple, e.g. `amdgcn-amd-amdhsa-` (4 fields, empty environment) or
    /// `x86_64-unknown-linux`.
    pub triple: String,
    /// The target ID of amdgcn entries (None for host entries, or when it does not parse).
    pub target: Option<TargetId>,
    /// Offset of the entry's data from the start of its (decompressed) bundle.
    pub offset: u64,
    pub data: Cow<'a, [u8]>,
}

/// A code object found in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundCodeObject<'a> {
    /// The bundle entry ID, None for a plain code object.
    pub bundle_id: Option<String>,
    pub data: Cow<'a, [u8]>,
}

/// Splits an entry ID into kind, triple and target ID text.
pub fn parse_entry_id(id: &str) -> (OffloadKind, String, Option<String>) {
    let (kind_s, rest) = id.split_once('-').unwrap_or((id, ""));
    let kind = match kind_s {
        "host" => OffloadKind::Host,
        "hip" => OffloadKind::Hip,
        "hipv4" => OffloadKind::HipV4,
        "openmp" => OffloadKind::OpenMp,
        other => OffloadKind::Other(other.to_string()),
    };
    if !rest.starts_with("amdgcn-") {
        return (kind, rest.to_string(), None);
    }
    let fields: Vec<&str> = rest.splitn(5, '-').collect();
    match fields.as_slice() {
        // amdgcn-amd-amdhsa-<env>-<target>
        [a, b, c, env, target] if !env.starts_with("gfx") => (
            kind,
            format!("{a}-{b}-{c}-{env}"),
            Some(target.to_string()).filter(|t| !t.is_empty()),
        ),
        // amdgcn-amd-amdhsa-<target> (3-field triple)
        [a, b, c, rest @ ..] => {
            let target = rest.join("-");
            (
                kind,
                format!("{a}-{b}-{c}"),
                Some(target).filter(|t| !t.is_empty()),
            )
        }
        _ => (kind, rest.to_string(), None),
    }
}

fn entry<'a>(id: String, offset: u64, data: Cow<'a, [u8]>) -> BundleEntry<'a> {
    let (kind, triple, target_text) = parse_entry_id(&id);
    let target = target_text.and_then(|t| TargetId::parse(&t).ok());
    BundleEntry {
        id,
        kind,
        triple,
        target,
        offset,
        data,
    }
}

/// Parses one uncompressed bundle at the start of `data`; returns its entries (borrowing) and
/// its length (end of the furthest entry or of the header).
fn parse_uncompressed(data: &[u8], base: u64) -> Result<(Vec<BundleEntry<'_>>, u64)> {
    let bad = |offset: u64, reason: String| Error::Bundle {
        offset: base + offset,
        reason,
    };
    let head = slice(data, 0, 32, "offload bundle header")
        .map_err(|_| bad(0, "header shorter than 32 bytes".into()))?;
    if &head[..24] != BUNDLE_MAGIC {
        return Err(bad(0, "no __CLANG_OFFLOAD_BUNDLE__ magic".into()));
    }
    let count = le_u64(head, 24);
    let max_count = (data.len() as u64 - 32) / 24;
    if count > max_count {
        return Err(bad(
            24,
            format!("{count} entries cannot fit in {} bytes", data.len()),
        ));
    }
    let mut entries = Vec::with_capacity(count as usize);
    let mut pos: u64 = 32;
    let mut end = 32u64;
    for i in 0..count {
        let h = slice(data, pos, 24, "bundle entry header")
            .map_err(|_| bad(pos, format!("entry {i} header runs past the end")))?;
        let (off, size, id_len) = (le_u64(h, 0), le_u64(h, 8), le_u64(h, 16));
        let id_bytes = slice(data, pos + 24, id_len, "bundle entry ID").map_err(|_| {
            bad(
                pos + 16,
                format!("entry {i} ID length {id_len} runs past the end"),
            )
        })?;
        let id = std::str::from_utf8(id_bytes)
            .map_err(|_| bad(pos + 24, format!("entry {i} ID is not UTF-8")))?
            .to_string();
        let body = slice(data, off, size, "bundle entry").map_err(|_| {
            bad(
                pos,
                format!(
                    "entry {i} `{id}` at {off:#x} size {size:#x} runs past the end ({:#x})",
                    data.len()
                ),
            )
        })?;
        pos += 24 + id_len;
        end = end.max(pos).max(off + size);
        entries.push(entry(id, off, Cow::Borrowed(body)));
    }
    Ok((entries, end))
}

/// Decompresses one `CCOB` bundle at the start of `data`; returns the bundle bytes and the
/// compressed bundle's length (header version 1 does not record it: there it is the header
/// plus what the decompressor consumed).
fn decompress(data: &[u8], base: u64) -> Result<(Vec<u8>, Option<u64>)> {
    let bad = |offset: u64, reason: String| Error::Decompress {
        offset: base + offset,
        reason,
    };
    let h = slice(data, 0, 8, "compressed bundle header")
        .map_err(|_| bad(0, "header shorter than 8 bytes".into()))?;
    let version = le_u16(h, 4);
    let method = le_u16(h, 6);
    let (header_len, total, uncompressed) = match version {
        1 => {
            let h = slice(data, 0, 20, "CCOB v1 header")
                .map_err(|_| bad(0, "v1 header shorter than 20 bytes".into()))?;
            (20u64, None, u64::from(le_u32(h, 8)))
        }
        2 => {
            let h = slice(data, 0, 24, "CCOB v2 header")
                .map_err(|_| bad(0, "v2 header shorter than 24 bytes".into()))?;
            (24, Some(u64::from(le_u32(h, 8))), u64::from(le_u32(h, 12)))
        }
        3 => {
            let h = slice(data, 0, 32, "CCOB v3 header")
                .map_err(|_| bad(0, "v3 header shorter than 32 bytes".into()))?;
            (32, Some(le_u64(h, 8)), le_u64(h, 16))
        }
        v => return Err(bad(4, format!("unknown header version {v}"))),
    };
    let payload_end = match total {
        Some(t) if t < header_len || t > data.len() as u64 => {
            return Err(bad(
                8,
                format!(
                    "total size {t:#x} outside {header_len:#x}..={:#x}",
                    data.len()
                ),
            ))
        }
        Some(t) => t,
        // V1 records no size: the compressed stream's own end marks the end of the bundle.
        None => data.len() as u64,
    };
    let payload = &data[header_len as usize..payload_end as usize];
    if uncompressed > MAX_DECOMPRESSED_SIZE
        || uncompressed > (payload.len() as u64).saturating_mul(MAX_RATIO) + 4096
    {
        return Err(bad(
            8,
            format!(
                "uncompressed size {uncompressed:#x} is implausible for {} compressed bytes",
                payload.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(uncompressed as usize);
    let limit = uncompressed + 1;
    let method_name = if method == 0 { "zlib" } else { "zstd" };
    let consumed: u64 = match method {
        0 => {
            // The `bufread` decoder consumes exactly the zlib stream, so `total_in` is its size.
            let mut z = flate2::bufread::ZlibDecoder::new(payload);
            (&mut z)
                .take(limit)
                .read_to_end(&mut out)
                .map_err(|e| bad(header_len, format!("zlib: {e}")))?;
            z.total_in()
        }
        1 => {
            // ruzstd, a decoder in Rust: clang writes current zstd frames (one per bundle, no
            // dictionary); the C library's compressor and legacy (pre-1.0) frame decoders
            // cost a cold build ~50 CPU-s (docs/notes/ci-time.md, "Round 8").
            let mut rest = payload;
            let mut z = ruzstd::decoding::StreamingDecoder::new(&mut rest)
                .map_err(|e| bad(header_len, format!("zstd: {e}")))?;
            (&mut z)
                .take(limit)
                .read_to_end(&mut out)
                .map_err(|e| bad(header_len, format!("zstd: {e}")))?;
            let frame = z.into_frame_decoder();
            if let (Some(stored), Some(computed)) = (
                frame.get_checksum_from_data(),
                frame.get_calculated_checksum(),
            ) {
                if stored != computed {
                    return Err(bad(
                        header_len,
                        format!(
                            "zstd: content checksum {computed:#010x}, frame says {stored:#010x}"
                        ),
                    ));
                }
            }
            // The decoder reads the frame exactly, so what it left is after the frame.
            (payload.len() - rest.len()) as u64
        }
        m => {
            return Err(bad(
                6,
                format!("unknown compression method {m} (0 zlib, 1 zstd)"),
            ))
        }
    };
    if out.len() as u64 != uncompressed {
        return Err(bad(
            header_len,
            format!(
                "{method_name}: decompressed to {} bytes, header says {uncompressed}",
                out.len()
            ),
        ));
    }
    Ok((out, total.or(Some(header_len + consumed))))
}

/// The next offset ≥ `from` where a bundle magic starts (a linear scan).
fn next_bundle_start(data: &[u8], from: usize) -> Option<usize> {
    let hay = data.get(from..)?;
    hay.windows(4)
        .enumerate()
        .filter(|(_, w)| *w == COMPRESSED_BUNDLE_MAGIC || *w == &BUNDLE_MAGIC[..4])
        .map(|(i, _)| from + i)
        .find(|&at| {
            data[at..].starts_with(COMPRESSED_BUNDLE_MAGIC) || data[at..].starts_with(BUNDLE_MAGIC)
        })
}

/// The entries of one bundle (compressed or not) at the start of `data`. Entries of a
/// compressed bundle own their bytes.
pub fn unbundle(data: &[u8]) -> Result<Vec<BundleEntry<'_>>> {
    Ok(unbundle_at(data, 0)?.0)
}

fn unbundle_at(data: &[u8], base: u64) -> Result<(Vec<BundleEntry<'_>>, Option<u64>)> {
    if data.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        let (bytes, total) = decompress(data, base)?;
        let (entries, _) = parse_uncompressed(&bytes, 0).map_err(|e| match e {
            Error::Bundle { offset, reason } => Error::Bundle {
                offset: base,
                reason: format!("decompressed bundle, offset {offset:#x}: {reason}"),
            },
            e => e,
        })?;
        let owned = entries
            .into_iter()
            .map(|e| BundleEntry {
                data: Cow::Owned(e.data.into_owned()),
                ..e
            })
            .collect();
        Ok((owned, total))
    } else {
        let (entries, end) = parse_uncompressed(data, base)?;
        Ok((entries, Some(end)))
    }
}

/// Every bundle in `data` (one after another, possibly with padding between them, as in a
/// `.hip_fatbin` section holding several translation units' bundles).
pub fn unbundle_all(data: &[u8]) -> Result<Vec<BundleEntry<'_>>> {
    let mut all = Vec::new();
    let mut pos = match next_bundle_start(data, 0) {
        Some(p) => p,
        None => {
            return Err(Error::Bundle {
                offset: 0,
                reason: "no __CLANG_OFFLOAD_BUNDLE__ or CCOB magic".into(),
            })
        }
    };
    loop {
        let (entries, len) = unbundle_at(&data[pos..], pos as u64)?;
        all.extend(entries);
        let next_from = match len {
            Some(l) => pos.saturating_add(l.max(1) as usize),
            None => pos + 4,
        };
        match next_bundle_start(data, next_from) {
            Some(p) => pos = p,
            None => break,
        }
    }
    Ok(all)
}

fn from_bundles(entries: Vec<BundleEntry<'_>>) -> Vec<FoundCodeObject<'_>> {
    entries
        .into_iter()
        .filter(|e| is_amdgpu_elf(&e.data))
        .map(|e| FoundCodeObject {
            bundle_id: Some(e.id),
            data: e.data,
        })
        .collect()
}

/// Whether `data` is an AMDGPU ELF (e_machine 224).
fn is_amdgpu_elf(data: &[u8]) -> bool {
    data.starts_with(b"\x7fELF") && data.len() >= 20 && le_u16(data, 18) == EM_AMDGPU
}

/// The code objects in a file: a plain AMDGPU code object, a bundle (`__CLANG_OFFLOAD_BUNDLE__`
/// or `CCOB`, possibly several in a row), or a host ELF with a `.hip_fatbin` section. Bundle
/// entries that are not AMDGPU ELF files (host entries, bitcode) are skipped.
pub fn find_code_objects(file: &[u8]) -> Result<Vec<FoundCodeObject<'_>>> {
    if is_amdgpu_elf(file) {
        return Ok(vec![FoundCodeObject {
            bundle_id: None,
            data: Cow::Borrowed(file),
        }]);
    }
    if file.starts_with(BUNDLE_MAGIC) || file.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        return Ok(from_bundles(unbundle_all(file)?));
    }
    if file.starts_with(b"\x7fELF") {
        let fatbin = hip_fatbin(file).map_err(|e| match e {
            Error::UnknownFormat { .. } if file.len() >= 20 => Error::UnknownFormat {
                offset: 0x12,
                reason: format!(
                    "e_machine {} is not EM_AMDGPU (224), and the file is no host ELF with a .hip_fatbin section",
                    le_u16(file, 18)
                ),
            },
            e => e,
        })?;
        return Ok(from_bundles(unbundle_all(fatbin)?));
    }
    Err(Error::UnknownFormat {
        offset: 0,
        reason: "neither an ELF file nor an offload bundle (__CLANG_OFFLOAD_BUNDLE__ / CCOB)"
            .into(),
    })
}

/// The `.hip_fatbin` section of a host ELF (64-bit little-endian).
pub fn hip_fatbin(file: &[u8]) -> Result<&[u8]> {
    if file.get(4) != Some(&2) || file.get(5) != Some(&1) {
        return Err(Error::UnknownFormat {
            offset: 4,
            reason: "host ELF is not 64-bit little-endian".into(),
        });
    }
    let header = elf::FileHeader64::<LE>::parse(file).map_err(|e| Error::Elf {
        what: "host ELF header",
        offset: 0,
        reason: e.to_string(),
    })?;
    let endian = header.endian().map_err(|e| Error::Elf {
        what: "host ELF header",
        offset: 0,
        reason: e.to_string(),
    })?;
    let shoff = header.e_shoff.get(endian);
    let table = header.sections(endian, file).map_err(|e| Error::Elf {
        what: "host section header table",
        offset: shoff,
        reason: e.to_string(),
    })?;
    let (_, sh) = table
        .section_by_name(endian, b".hip_fatbin")
        .ok_or_else(|| Error::UnknownFormat {
            offset: 0,
            reason: "host ELF has no .hip_fatbin section".into(),
        })?;
    sh.data(endian, file).map_err(|e| Error::Elf {
        what: ".hip_fatbin section",
        offset: sh.sh_offset(endian),
        reason: e.to_string(),
    })
}
