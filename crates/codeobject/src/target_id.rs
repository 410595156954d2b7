//! Target IDs and ISA names: `gfx90a:xnack-` (V4+ syntax), `gfx906+xnack` (V2/V3 syntax) and
//! full ISA names `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`, their canonical form, and the
//! compatibility rule between a code object's target and an agent's (ROCr `Isa::IsCompatible`).

use crate::error::{Error, Result};
use crate::processor::{processor_info, ProcessorInfo};

/// The setting of a target feature (xnack, sramecc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Not specified: the code works with the feature on or off.
    Any,
    On,
    Off,
    /// The processor does not have the feature (V4+ e_flags value 0).
    Unsupported,
}

impl Feature {
    fn suffix(self) -> Option<char> {
        match self {
            Feature::On => Some('+'),
            Feature::Off => Some('-'),
            Feature::Any | Feature::Unsupported => None,
        }
    }

    /// Whether a code object built with `self` runs on an agent whose setting is `agent`.
    fn compatible_with(self, agent: Feature) -> bool {
        match self {
            Feature::Any | Feature::Unsupported => true,
            Feature::On => matches!(agent, Feature::On | Feature::Any),
            Feature::Off => matches!(agent, Feature::Off | Feature::Any | Feature::Unsupported),
        }
    }
}

/// A parsed target ID: processor plus the xnack and sramecc settings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    processor: String,
    xnack: Feature,
    sramecc: Feature,
}

/// The triple every amdhsa ISA name starts with.
pub const AMDHSA_TRIPLE: &str = "amdgcn-amd-amdhsa";

impl TargetId {
    /// A target ID from its parts; the processor name is canonicalised (alternative names such
    /// as `fiji` become `gfx803`) when it is known.
    pub fn new(processor: &str, xnack: Feature, sramecc: Feature) -> TargetId {
        let processor = processor_info(processor)
            .map_or(processor, |p| p.name)
            .to_string();
        TargetId {
            processor,
            xnack,
            sramecc,
        }
    }

    /// Parses `gfx90a`, `gfx90a:xnack-`, `gfx90a:sramecc+:xnack-`, `gfx906+xnack`,
    /// `gfx906+sram-ecc`, and full ISA names `amdgcn-amd-amdhsa--gfx90a:xnack-` (also
    /// `amdgcn-amd-amdhsa-gfx90a`). Features the processor does not have are rejected, as are
    /// unknown features and repeated ones; unknown processors are accepted (a reader must be able
    /// to name a target it cannot run).
    pub fn parse(text: &str) -> Result<TargetId> {
        let bad = |reason: &str| Error::InvalidTargetId {
            text: text.chars().take(200).collect(),
            reason: reason.to_string(),
        };
        let mut rest = text;
        if let Some(r) = rest.strip_prefix(AMDHSA_TRIPLE) {
            rest = r
                .strip_prefix("--")
                .or_else(|| r.strip_prefix('-'))
                .ok_or_else(|| bad("no processor after the triple"))?;
        } else if rest.starts_with("amdgcn-") || rest.starts_with("r600-") {
            return Err(bad("only the amdgcn-amd-amdhsa triple is supported"));
        }
        // Split the processor from the feature list: the processor ends at the first ':' or '+'.
        let end = rest.find([':', '+']).unwrap_or(rest.len());
        let (proc_name, mut features) = rest.split_at(end);
        if proc_name.is_empty() {
            return Err(bad("empty processor name"));
        }
        if !proc_name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(bad(
                "processor name has characters other than letters, digits and '-'",
            ));
        }
        let info = processor_info(proc_name);
        let mut xnack = None;
        let mut sramecc = None;
        while !features.is_empty() {
            // Either ":name+" / ":name-" (new syntax) or "+name" (old syntax, present = on).
            let (name, value, len);
            if let Some(r) = features.strip_prefix(':') {
                let stop = r.find(':').unwrap_or(r.len());
                let item = &r[..stop];
                let (n, v) = if let Some(n) = item.strip_suffix('+') {
                    (n, Feature::On)
                } else if let Some(n) = item.strip_suffix('-') {
                    (n, Feature::Off)
                } else {
                    return Err(bad("a feature after ':' must end in '+' or '-'"));
                };
                name = n;
                value = v;
                len = 1 + stop;
            } else if let Some(r) = features.strip_prefix('+') {
                let stop = r.find(['+', ':']).unwrap_or(r.len());
                name = &r[..stop];
                value = Feature::On;
                len = 1 + stop;
            } else {
                return Err(bad("expected ':' or '+' before a feature"));
            }
            let slot = match name {
                "xnack" => &mut xnack,
                "sramecc" | "sram-ecc" => &mut sramecc,
                "" => return Err(bad("empty feature name")),
                _ => return Err(bad(&format!("unknown target feature `{name}`"))),
            };
            if slot.is_some() {
                return Err(bad(&format!("feature `{name}` given twice")));
            }
            *slot = Some(value);
            features = &features[len..];
        }
        if let Some(info) = info {
            if xnack.is_some() && !info.supports_xnack {
                return Err(bad(&format!("{} does not support xnack", info.name)));
            }
            if sramecc.is_some() && !info.supports_sramecc {
                return Err(bad(&format!("{} does not support sramecc", info.name)));
            }
        }
        let default = |supported: bool| {
            if info.is_none() || supported {
                Feature::Any
            } else {
                Feature::Unsupported
            }
        };
        Ok(TargetId {
            processor: info.map_or(proc_name, |i| i.name).to_string(),
            xnack: xnack.unwrap_or(default(info.is_some_and(|i| i.supports_xnack))),
            sramecc: sramecc.unwrap_or(default(info.is_some_and(|i| i.supports_sramecc))),
        })
    }

    /// The processor name, e.g. `gfx90a`.
    pub fn processor(&self) -> &str {
        &self.processor
    }

    /// The processor's table entry, if the processor is known.
    pub fn processor_info(&self) -> Option<&'static ProcessorInfo> {
        processor_info(&self.processor)
    }

    pub fn xnack(&self) -> Feature {
        self.xnack
    }

    pub fn sramecc(&self) -> Feature {
        self.sramecc
    }

    /// The canonical target ID: processor, then explicit features alphabetically
    /// (`gfx90a:sramecc+:xnack-`).
    pub fn canonical(&self) -> String {
        let mut s = self.processor.clone();
        for (name, f) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(c) = f.suffix() {
                s.push(':');
                s.push_str(name);
                s.push(c);
            }
        }
        s
    }

    /// The full ISA name, `amdgcn-amd-amdhsa--<canonical target ID>`.
    pub fn isa_name(&self) -> String {
        format!("{AMDHSA_TRIPLE}--{}", self.canonical())
    }

    /// The V2/V3 syntax (`gfx906+xnack`): a feature is listed when on; Any and Off are omitted.
    pub fn legacy_syntax(&self) -> String {
        let mut s = self.processor.clone();
        for (name, f) in [("xnack", self.xnack), ("sram-ecc", self.sramecc)] {
            if f == Feature::On {
                s.push('+');
                s.push_str(name);
            }
        }
        s
    }
}

impl std::fmt::Display for TargetId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl std::str::FromStr for TargetId {
    type Err = Error;
    fn from_str(s: &str) -> Result<TargetId> {
        TargetId::parse(s)
    }
}

/// Whether a code object built for `code_object` may run on an agent whose ISA is `agent`:
/// the processors must be equal (or the code object's generic processor must cover the agent's),
/// and each of xnack and sramecc set On or Off in the code object must equal the agent's setting
/// (Any matches both).
pub fn is_compatible(code_object: &TargetId, agent: &TargetId) -> bool {
    let same_processor = code_object.processor == agent.processor
        || processor_info(&code_object.processor)
            .is_some_and(|g| g.generic_covers.contains(&agent.processor.as_str()));
    same_processor
        && code_object.xnack.compatible_with(agent.xnack)
        && code_object.sramecc.compatible_with(agent.sramecc)
}
