//! Code object metadata: V2 YAML (`NT_AMD_HSA_METADATA`) and V3+ MessagePack
//! (`NT_AMDGPU_METADATA`), read into one model: [`Metadata`], [`Kernel`], [`KernelArg`].
//!
//! Both formats are first decoded into a small generic [`Value`] tree (by `rmpv` and by
//! `yaml-rust2`'s event parser, with a nesting limit), then interpreted key by key. Every key of
//! the V2–V6 tables is understood; keys that are not are kept in `extra` maps, never rejected.
//! V2 arguments carry no offsets; they are laid out in order, each aligned to its `Align`.

use crate::error::{Error, Result};

/// Deepest nesting accepted in metadata (real metadata nests 4 levels).
const MAX_DEPTH: usize = 32;

/// A generic metadata value (what MessagePack and YAML have in common).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i128),
    Float(f64),
    String(String),
    Binary(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::String(_) => "a string",
            Value::Binary(_) => "binary data",
            Value::Array(_) => "an array",
            Value::Map(_) => "a map",
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The kind of a kernel argument (`.value_kind` / `ValueKind`), including every hidden kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum ValueKind {
    #[default]
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    HiddenGridDims,
    HiddenHeapV1,
    HiddenDynamicLdsSize,
    HiddenPrivateBase,
    HiddenSharedBase,
    HiddenQueuePtr,
    /// Deprecated V2/V3 kinds kept for old objects.
    HiddenToolCorrelationId,
    /// A kind this reader does not know, spelled as in the metadata. Hidden unknown kinds
    /// (`hidden_*`) should be zero-filled by a runtime.
    Unknown(String),
}

/// (V3+ name, V2 name, kind) for every known kind.
pub const VALUE_KINDS: &[(&str, &str, ValueKind)] = {
    use ValueKind::*;
    &[
        ("by_value", "ByValue", ByValue),
        ("global_buffer", "GlobalBuffer", GlobalBuffer),
        (
            "dynamic_shared_pointer",
            "DynamicSharedPointer",
            DynamicSharedPointer,
        ),
        ("sampler", "Sampler", Sampler),
        ("image", "Image", Image),
        ("pipe", "Pipe", Pipe),
        ("queue", "Queue", Queue),
        (
            "hidden_global_offset_x",
            "HiddenGlobalOffsetX",
            HiddenGlobalOffsetX,
        ),
        (
            "hidden_global_offset_y",
            "HiddenGlobalOffsetY",
            HiddenGlobalOffsetY,
        ),
        (
            "hidden_global_offset_z",
            "HiddenGlobalOffsetZ",
            HiddenGlobalOffsetZ,
        ),
        ("hidden_none", "HiddenNone", HiddenNone),
        (
            "hidden_printf_buffer",
            "HiddenPrintfBuffer",
            HiddenPrintfBuffer,
        ),
        (
            "hidden_hostcall_buffer",
            "HiddenHostcallBuffer",
            HiddenHostcallBuffer,
        ),
        (
            "hidden_default_queue",
            "HiddenDefaultQueue",
            HiddenDefaultQueue,
        ),
        (
            "hidden_completion_action",
            "HiddenCompletionAction",
            HiddenCompletionAction,
        ),
        (
            "hidden_multigrid_sync_arg",
            "HiddenMultiGridSyncArg",
            HiddenMultigridSyncArg,
        ),
        (
            "hidden_block_count_x",
            "HiddenBlockCountX",
            HiddenBlockCountX,
        ),
        (
            "hidden_block_count_y",
            "HiddenBlockCountY",
            HiddenBlockCountY,
        ),
        (
            "hidden_block_count_z",
            "HiddenBlockCountZ",
            HiddenBlockCountZ,
        ),
        ("hidden_group_size_x", "HiddenGroupSizeX", HiddenGroupSizeX),
        ("hidden_group_size_y", "HiddenGroupSizeY", HiddenGroupSizeY),
        ("hidden_group_size_z", "HiddenGroupSizeZ", HiddenGroupSizeZ),
        ("hidden_remainder_x", "HiddenRemainderX", HiddenRemainderX),
        ("hidden_remainder_y", "HiddenRemainderY", HiddenRemainderY),
        ("hidden_remainder_z", "HiddenRemainderZ", HiddenRemainderZ),
        ("hidden_grid_dims", "HiddenGridDims", HiddenGridDims),
        ("hidden_heap_v1", "HiddenHeapV1", HiddenHeapV1),
        (
            "hidden_dynamic_lds_size",
            "HiddenDynamicLdsSize",
            HiddenDynamicLdsSize,
        ),
        (
            "hidden_private_base",
            "HiddenPrivateBase",
            HiddenPrivateBase,
        ),
        ("hidden_shared_base", "HiddenSharedBase", HiddenSharedBase),
        ("hidden_queue_ptr", "HiddenQueuePtr", HiddenQueuePtr),
        (
            "hidden_tool_correlation_id",
            "HiddenToolCorrelationId",
            HiddenToolCorrelationId,
        ),
    ]
};

impl ValueKind {
    /// From a V3+ name (`hidden_block_count_x`); unknown names become [`ValueKind::Unknown`].
    pub fn from_v3(name: &str) -> ValueKind {
        VALUE_KINDS
            .iter()
            .find(|(v3, _, _)| *v3 == name)
            .map_or_else(
                || ValueKind::Unknown(name.to_string()),
                |(_, _, k)| k.clone(),
            )
    }

    /// From a V2 name (`HiddenGlobalOffsetX`); unknown names become [`ValueKind::Unknown`].
    pub fn from_v2(name: &str) -> ValueKind {
        VALUE_KINDS
            .iter()
            .find(|(_, v2, _)| *v2 == name)
            .map_or_else(
                || ValueKind::Unknown(name.to_string()),
                |(_, _, k)| k.clone(),
            )
    }

    /// The V3+ spelling (`global_buffer`); unknown kinds keep their original spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ValueKind::Unknown(s) => s,
            k => VALUE_KINDS
                .iter()
                .find(|(_, _, x)| x == k)
                .map_or("", |(v3, _, _)| v3),
        }
    }

    /// An implicit argument the runtime fills (every `hidden_*` kind, known or not).
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
            || matches!(self, ValueKind::Unknown(s) if s.starts_with("Hidden"))
    }
}

impl std::fmt::Display for ValueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `.address_space` / `AddrSpaceQual`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
    Region,
    Unknown(String),
}

impl AddressSpace {
    fn parse(s: &str) -> AddressSpace {
        match s.to_ascii_lowercase().as_str() {
            "private" => AddressSpace::Private,
            "global" => AddressSpace::Global,
            "constant" => AddressSpace::Constant,
            "local" => AddressSpace::Local,
            "generic" => AddressSpace::Generic,
            "region" => AddressSpace::Region,
            _ => AddressSpace::Unknown(s.to_string()),
        }
    }

    /// The V3+ spelling.
    pub fn as_str(&self) -> &str {
        match self {
            AddressSpace::Private => "private",
            AddressSpace::Global => "global",
            AddressSpace::Constant => "constant",
            AddressSpace::Local => "local",
            AddressSpace::Generic => "generic",
            AddressSpace::Region => "region",
            AddressSpace::Unknown(s) => s,
        }
    }
}

/// `.access` / `.actual_access` / `AccQual`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    ReadOnly,
    WriteOnly,
    ReadWrite,
    /// V2 `Default`.
    Default,
    Unknown(String),
}

impl Access {
    fn parse(s: &str) -> Access {
        match s {
            "read_only" | "ReadOnly" => Access::ReadOnly,
            "write_only" | "WriteOnly" => Access::WriteOnly,
            "read_write" | "ReadWrite" => Access::ReadWrite,
            "Default" | "default" => Access::Default,
            _ => Access::Unknown(s.to_string()),
        }
    }

    /// The V3+ spelling (`default` for V2's `Default`).
    pub fn as_str(&self) -> &str {
        match self {
            Access::ReadOnly => "read_only",
            Access::WriteOnly => "write_only",
            Access::ReadWrite => "read_write",
            Access::Default => "default",
            Access::Unknown(s) => s,
        }
    }
}

/// `.kind` of a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum KernelKind {
    #[default]
    Normal,
    /// Run after loading, before other kernels.
    Init,
    /// Run before unloading.
    Fini,
    Unknown(String),
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    /// Byte offset in the kernarg segment (V2: computed from `Align` and `Size`).
    pub offset: u32,
    pub size: u32,
    /// V2 `Align` (V3+ has none).
    pub align: Option<u32>,
    pub value_kind: ValueKind,
    /// Deprecated `.value_type` / `ValueType`.
    pub value_type: Option<String>,
    pub pointee_align: Option<u32>,
    pub address_space: Option<AddressSpace>,
    pub access: Option<Access>,
    pub actual_access: Option<Access>,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
    pub is_pipe: bool,
    /// Keys this reader does not know, as written.
    pub extra: Vec<(String, Value)>,
}

/// One kernel's metadata.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Kernel {
    /// Source name (mangled for HIP).
    pub name: String,
    /// Kernel descriptor symbol (`<name>.kd`); V2 writes `<name>@kd`, kept as written.
    pub symbol: String,
    pub language: Option<String>,
    pub language_version: Option<Vec<u32>>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub wavefront_size: u32,
    /// SGPRs used, including VCC/FLAT_SCRATCH/XNACK_MASK (as the metadata says).
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    /// gfx908/90a/94x.
    pub agpr_count: Option<u32>,
    pub sgpr_spill_count: Option<u32>,
    pub vgpr_spill_count: Option<u32>,
    pub max_flat_workgroup_size: u32,
    pub reqd_workgroup_size: Option<[u32; 3]>,
    pub workgroup_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<String>,
    pub device_enqueue_symbol: Option<String>,
    /// V2 `Attrs.RuntimeHandle`.
    pub runtime_handle: Option<String>,
    pub kind: KernelKind,
    pub max_num_work_groups: [Option<u32>; 3],
    pub uses_dynamic_stack: Option<bool>,
    pub workgroup_processor_mode: Option<bool>,
    pub uniform_work_group_size: Option<u32>,
    pub args: Vec<KernelArg>,
    /// Keys this reader does not know (including `CodeProps`/`Attrs` sub-keys in V2).
    pub extra: Vec<(String, Value)>,
}

/// One `amdhsa.printf` / `Printf` entry: `"ID:N:S0:…:S(N-1):Format"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintfInfo {
    pub id: u32,
    /// Byte size of each argument in the printf buffer.
    pub arg_sizes: Vec<u32>,
    pub format: String,
}

impl PrintfInfo {
    /// Parses `"1:3:4:4:4:hello %d %f %s\n"`.
    pub fn parse(s: &str) -> Option<PrintfInfo> {
        let mut parts = s.splitn(3, ':');
        let id = parts.next()?.trim().parse().ok()?;
        let n: usize = parts.next()?.trim().parse().ok()?;
        let mut rest = parts.next().unwrap_or("");
        let mut arg_sizes = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let (size, tail) = rest.split_once(':')?;
            arg_sizes.push(size.trim().parse().ok()?);
            rest = tail;
        }
        Some(PrintfInfo {
            id,
            arg_sizes,
            format: rest.to_string(),
        })
    }
}

/// The whole metadata of a code object.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Metadata {
    /// `amdhsa.version` / `Version` (`[1, 0]` V2/V3, `[1, 1]` V4, `[1, 2]` V5/V6).
    pub version: Vec<u32>,
    /// `amdhsa.target` (V4+).
    pub target: Option<String>,
    /// Parsed printf entries; entries that do not parse are kept in `printf_raw` only.
    pub printf: Vec<PrintfInfo>,
    pub printf_raw: Vec<String>,
    pub kernels: Vec<Kernel>,
    /// Top-level keys this reader does not know.
    pub extra: Vec<(String, Value)>,
}

/// Decodes MessagePack into a [`Value`].
pub fn decode_msgpack(data: &[u8], note_offset: u64) -> Result<Value> {
    // Borrowing decode first: a library's metadata has hundreds of thousands of strings, and the
    // owning decoder reads each through `Read::take` into a vector of its own. Malformed data
    // fails in both decoders alike; the owning one then makes the error, as it always did.
    let mut rd = data;
    if let Ok(v) = rmpv::decode::read_value_ref_with_max_depth(&mut rd, MAX_DEPTH) {
        return Ok(conv_ref(v));
    }
    let mut rd = data;
    let v = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH).map_err(|e| {
        Error::Metadata {
            offset: note_offset + (data.len() - rd.len()) as u64,
            path: "(msgpack)".into(),
            reason: e.to_string(),
        }
    })?;
    Ok(conv_ref(v.as_ref()))
}

/// A decoded MessagePack value as a [`Value`] (the owning decoder's too, through `as_ref`).
fn conv_ref(v: rmpv::ValueRef) -> Value {
    match v {
        rmpv::ValueRef::Nil => Value::Nil,
        rmpv::ValueRef::Boolean(b) => Value::Bool(b),
        // MessagePack has signed and unsigned 64-bit integers.
        rmpv::ValueRef::Integer(i) => Value::Int(
            i.as_i64()
                .map(i128::from)
                .or(i.as_u64().map(i128::from))
                .unwrap_or(0),
        ),
        rmpv::ValueRef::F32(f) => Value::Float(f64::from(f)),
        rmpv::ValueRef::F64(f) => Value::Float(f),
        rmpv::ValueRef::String(s) => match s.into_str() {
            Some(s) => Value::String(s.to_string()),
            None => Value::Binary(Vec::new()),
        },
        rmpv::ValueRef::Binary(b) => Value::Binary(b.to_vec()),
        rmpv::ValueRef::Array(a) => Value::Array(a.into_iter().map(conv_ref).collect()),
        rmpv::ValueRef::Map(m) => Value::Map(
            m.into_iter()
                .map(|(k, v)| (conv_ref(k), conv_ref(v)))
                .collect(),
        ),
        rmpv::ValueRef::Ext(_, b) => Value::Binary(b.to_vec()),
    }
}

/// Builds a [`Value`] from YAML parser events, refusing nesting deeper than [`MAX_DEPTH`].
struct YamlBuilder {
    stack: Vec<(Value, Option<Value>)>,
    root: Option<Value>,
    error: Option<String>,
    depth_exceeded: bool,
}

impl YamlBuilder {
    fn push_value(&mut self, v: Value) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(v);
                }
            }
            Some((Value::Array(a), _)) => a.push(v),
            Some((Value::Map(m), pending)) => match pending.take() {
                None => *pending = Some(v),
                Some(k) => m.push((k, v)),
            },
            Some(_) => {}
        }
    }
}

fn yaml_scalar(s: String, style: yaml_rust2::scanner::TScalarStyle) -> Value {
    use yaml_rust2::scanner::TScalarStyle;
    if style != TScalarStyle::Plain {
        return Value::String(s);
    }
    match s.as_str() {
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        "~" | "null" | "Null" | "NULL" | "" => return Value::Nil,
        _ => {}
    }
    if let Ok(i) = s.parse::<i128>() {
        return Value::Int(i);
    }
    if let Some(h) = s.strip_prefix("0x") {
        if let Ok(i) = i128::from_str_radix(h, 16) {
            return Value::Int(i);
        }
    }
    if s.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'-' || b == b'.')
    {
        if let Ok(f) = s.parse::<f64>() {
            return Value::Float(f);
        }
    }
    Value::String(s)
}

impl yaml_rust2::parser::EventReceiver for YamlBuilder {
    fn on_event(&mut self, ev: yaml_rust2::Event) {
        use yaml_rust2::Event;
        if self.depth_exceeded {
            return;
        }
        match ev {
            Event::Scalar(s, style, _, _) => self.push_value(yaml_scalar(s, style)),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if self.stack.len() >= MAX_DEPTH {
                    self.depth_exceeded = true;
                    self.error = Some(format!("nesting deeper than {MAX_DEPTH} levels"));
                    return;
                }
                let v = if matches!(ev, Event::SequenceStart(..)) {
                    Value::Array(Vec::new())
                } else {
                    Value::Map(Vec::new())
                };
                self.stack.push((v, None));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((v, _)) = self.stack.pop() {
                    self.push_value(v);
                }
            }
            Event::Alias(_) => self.push_value(Value::Nil),
            _ => {}
        }
    }
}

/// Decodes YAML text (the first document) into a [`Value`].
pub fn decode_yaml(text: &str, note_offset: u64) -> Result<Value> {
    let mut b = YamlBuilder {
        stack: Vec::new(),
        root: None,
        error: None,
        depth_exceeded: false,
    };
    let mut parser = yaml_rust2::parser::Parser::new_from_str(text);
    let res = parser.load(&mut b, false);
    let err = |reason: String| Error::Metadata {
        offset: note_offset,
        path: "(yaml)".into(),
        reason,
    };
    if let Some(e) = b.error.take() {
        return Err(err(e));
    }
    res.map_err(|e| err(e.to_string()))?;
    b.root.ok_or_else(|| err("empty YAML document".into()))
}

/// The keys of one metadata flavour.
struct Keys {
    version: &'static str,
    printf: &'static str,
    kernels: &'static str,
    target: &'static str,
}

const V3_KEYS: Keys = Keys {
    version: "amdhsa.version",
    printf: "amdhsa.printf",
    kernels: "amdhsa.kernels",
    target: "amdhsa.target",
};
const V2_KEYS: Keys = Keys {
    version: "Version",
    printf: "Printf",
    kernels: "Kernels",
    target: "",
};

/// Where a value sits in the metadata, for errors: formatted only when an error is made (a
/// library's code object has thousands of kernels, and a path string per key cost a quarter of
/// its parse).
#[derive(Clone, Copy)]
enum Path<'a> {
    /// A top-level name (or `(top level)`).
    Name(&'a str),
    /// `{parent}.{key}`.
    Key(&'a Path<'a>, &'a str),
    /// `{parent}{key}`: a required key (with its leading `.`) that is missing.
    Missing(&'a Path<'a>, &'a str),
    /// `{parent}[{index}]`.
    Index(&'a Path<'a>, usize),
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Name(n) => f.write_str(n),
            Path::Key(p, k) => write!(f, "{p}.{k}"),
            Path::Missing(p, k) => write!(f, "{p}{k}"),
            Path::Index(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

/// Interprets values with paths for errors.
struct Ctx {
    offset: u64,
}

impl Ctx {
    fn err(&self, path: &Path, reason: impl Into<String>) -> Error {
        Error::Metadata {
            offset: self.offset,
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    fn map<'v>(&self, v: &'v Value, path: &Path) -> Result<&'v [(Value, Value)]> {
        match v {
            Value::Map(m) => Ok(m),
            other => Err(self.err(path, format!("expected a map, found {}", other.kind()))),
        }
    }

    fn array<'v>(&self, v: &'v Value, path: &Path) -> Result<&'v [Value]> {
        match v {
            Value::Array(a) => Ok(a),
            other => Err(self.err(path, format!("expected an array, found {}", other.kind()))),
        }
    }

    fn u32(&self, v: &Value, path: &Path) -> Result<u32> {
        match v {
            Value::Int(i) => u32::try_from(*i)
                .map_err(|_| self.err(path, format!("{i} is out of range 0..2^32"))),
            other => Err(self.err(path, format!("expected an integer, found {}", other.kind()))),
        }
    }

    fn string(&self, v: &Value, path: &Path) -> Result<String> {
        match v {
            Value::String(s) => Ok(s.clone()),
            // YAML may type an unquoted name like `true` or `12`; accept scalars as text.
            Value::Int(i) => Ok(i.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(self.err(path, format!("expected a string, found {}", other.kind()))),
        }
    }

    fn bool(&self, v: &Value, path: &Path) -> Result<bool> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Int(i) => Ok(*i != 0),
            other => Err(self.err(path, format!("expected a boolean, found {}", other.kind()))),
        }
    }

    fn u32_array(&self, v: &Value, path: &Path) -> Result<Vec<u32>> {
        let a = self.array(v, path)?;
        a.iter()
            .enumerate()
            .map(|(i, x)| self.u32(x, &Path::Index(path, i)))
            .collect()
    }

    fn dim3(&self, v: &Value, path: &Path) -> Result<[u32; 3]> {
        let a = self.u32_array(v, path)?;
        <[u32; 3]>::try_from(a)
            .map_err(|a| self.err(path, format!("expected 3 integers, found {}", a.len())))
    }
}

/// A map key as text; borrowed when it is a string (nearly always).
fn key_str(k: &Value) -> std::borrow::Cow<'_, str> {
    match k {
        Value::String(s) => std::borrow::Cow::Borrowed(s),
        Value::Int(i) => std::borrow::Cow::Owned(i.to_string()),
        other => std::borrow::Cow::Owned(format!("({})", other.kind())),
    }
}

/// Interprets V3+ MessagePack metadata (already decoded).
pub fn interpret_v3(root: &Value, note_offset: u64) -> Result<Metadata> {
    interpret(
        root,
        &V3_KEYS,
        Ctx {
            offset: note_offset,
        },
        false,
    )
}

/// Interprets V2 YAML metadata (already decoded); argument offsets are computed.
pub fn interpret_v2(root: &Value, note_offset: u64) -> Result<Metadata> {
    interpret(
        root,
        &V2_KEYS,
        Ctx {
            offset: note_offset,
        },
        true,
    )
}

fn interpret(root: &Value, keys: &Keys, cx: Ctx, v2: bool) -> Result<Metadata> {
    let top = cx.map(root, &Path::Name("(top level)"))?;
    let mut md = Metadata::default();
    let mut have_version = false;
    let mut have_kernels = false;
    for (k, v) in top {
        let name = key_str(k);
        let n = &*name;
        let np = Path::Name(n);
        if n == keys.version {
            md.version = cx.u32_array(v, &np)?;
            have_version = true;
        } else if n == keys.printf {
            for (i, p) in cx.array(v, &np)?.iter().enumerate() {
                let s = cx.string(p, &Path::Index(&np, i))?;
                if let Some(info) = PrintfInfo::parse(&s) {
                    md.printf.push(info);
                }
                md.printf_raw.push(s);
            }
        } else if n == keys.kernels {
            for (i, kv) in cx.array(v, &np)?.iter().enumerate() {
                let path = Path::Index(&np, i);
                md.kernels.push(if v2 {
                    kernel_v2(&cx, kv, &path)?
                } else {
                    kernel_v3(&cx, kv, &path)?
                });
            }
            have_kernels = true;
        } else if !keys.target.is_empty() && n == keys.target {
            md.target = Some(cx.string(v, &np)?);
        } else {
            md.extra.push((name.into_owned(), v.clone()));
        }
    }
    if !have_version {
        return Err(cx.err(&Path::Name(keys.version), "required key is missing"));
    }
    if !have_kernels && !v2 {
        return Err(cx.err(&Path::Name(keys.kernels), "required key is missing"));
    }
    Ok(md)
}

fn kernel_v3(cx: &Ctx, v: &Value, path: &Path) -> Result<Kernel> {
    let mut k = Kernel::default();
    let mut seen = [false; 10];
    for (key, val) in cx.map(v, path)? {
        let name = key_str(key);
        let p = Path::Key(path, &name);
        match &*name {
            ".name" => (k.name, seen[0]) = (cx.string(val, &p)?, true),
            ".symbol" => (k.symbol, seen[1]) = (cx.string(val, &p)?, true),
            ".language" => k.language = Some(cx.string(val, &p)?),
            ".language_version" => k.language_version = Some(cx.u32_array(val, &p)?),
            ".args" => {
                for (i, a) in cx.array(val, &p)?.iter().enumerate() {
                    k.args.push(arg_v3(cx, a, &Path::Index(&p, i))?);
                }
            }
            ".reqd_workgroup_size" => k.reqd_workgroup_size = Some(cx.dim3(val, &p)?),
            ".workgroup_size_hint" => k.workgroup_size_hint = Some(cx.dim3(val, &p)?),
            ".vec_type_hint" => k.vec_type_hint = Some(cx.string(val, &p)?),
            ".device_enqueue_symbol" => k.device_enqueue_symbol = Some(cx.string(val, &p)?),
            ".kernarg_segment_size" => (k.kernarg_segment_size, seen[2]) = (cx.u32(val, &p)?, true),
            ".group_segment_fixed_size" => {
                (k.group_segment_fixed_size, seen[3]) = (cx.u32(val, &p)?, true)
            }
            ".private_segment_fixed_size" => {
                (k.private_segment_fixed_size, seen[4]) = (cx.u32(val, &p)?, true)
            }
            ".kernarg_segment_align" => {
                (k.kernarg_segment_align, seen[5]) = (cx.u32(val, &p)?, true)
            }
            ".wavefront_size" => (k.wavefront_size, seen[6]) = (cx.u32(val, &p)?, true),
            ".sgpr_count" => (k.sgpr_count, seen[7]) = (cx.u32(val, &p)?, true),
            ".vgpr_count" => (k.vgpr_count, seen[8]) = (cx.u32(val, &p)?, true),
            ".max_flat_workgroup_size" => {
                (k.max_flat_workgroup_size, seen[9]) = (cx.u32(val, &p)?, true)
            }
            ".agpr_count" => k.agpr_count = Some(cx.u32(val, &p)?),
            ".sgpr_spill_count" => k.sgpr_spill_count = Some(cx.u32(val, &p)?),
            ".vgpr_spill_count" => k.vgpr_spill_count = Some(cx.u32(val, &p)?),
            ".kind" => {
                k.kind = match cx.string(val, &p)?.as_str() {
                    "normal" => KernelKind::Normal,
                    "init" => KernelKind::Init,
                    "fini" => KernelKind::Fini,
                    other => KernelKind::Unknown(other.to_string()),
                }
            }
            ".max_num_work_groups_x" => k.max_num_work_groups[0] = Some(cx.u32(val, &p)?),
            ".max_num_work_groups_y" => k.max_num_work_groups[1] = Some(cx.u32(val, &p)?),
            ".max_num_work_groups_z" => k.max_num_work_groups[2] = Some(cx.u32(val, &p)?),
            ".uses_dynamic_stack" => k.uses_dynamic_stack = Some(cx.bool(val, &p)?),
            ".workgroup_processor_mode" => k.workgroup_processor_mode = Some(cx.bool(val, &p)?),
            ".uniform_work_group_size" => k.uniform_work_group_size = Some(cx.u32(val, &p)?),
            _ => k.extra.push((name.into_owned(), val.clone())),
        }
    }
    const REQUIRED: [&str; 10] = [
        ".name",
        ".symbol",
        ".kernarg_segment_size",
        ".group_segment_fixed_size",
        ".private_segment_fixed_size",
        ".kernarg_segment_align",
        ".wavefront_size",
        ".sgpr_count",
        ".vgpr_count",
        ".max_flat_workgroup_size",
    ];
    require_keys(cx, path, &REQUIRED, &seen)?;
    Ok(k)
}

/// Fails on the first of `keys` (each with its leading `.`) that `seen` marks as absent from
/// the map at `path`.
fn require_keys(cx: &Ctx, path: &Path, keys: &[&str], seen: &[bool]) -> Result<()> {
    match keys.iter().zip(seen).find(|(_, &seen)| !seen) {
        Some((key, _)) => Err(cx.err(&Path::Missing(path, key), "required key is missing")),
        None => Ok(()),
    }
}

fn arg_common(cx: &Ctx, a: &mut KernelArg, name: &str, val: &Value, p: &Path) -> Result<bool> {
    match name {
        ".name" | "Name" => a.name = Some(cx.string(val, p)?),
        ".type_name" | "TypeName" => a.type_name = Some(cx.string(val, p)?),
        ".value_type" | "ValueType" => a.value_type = Some(cx.string(val, p)?),
        ".pointee_align" | "PointeeAlign" => a.pointee_align = Some(cx.u32(val, p)?),
        ".address_space" | "AddrSpaceQual" => {
            a.address_space = Some(AddressSpace::parse(&cx.string(val, p)?))
        }
        ".access" | "AccQual" => a.access = Some(Access::parse(&cx.string(val, p)?)),
        ".actual_access" | "ActualAccQual" => {
            a.actual_access = Some(Access::parse(&cx.string(val, p)?))
        }
        ".is_const" | "IsConst" => a.is_const = cx.bool(val, p)?,
        ".is_restrict" | "IsRestrict" => a.is_restrict = cx.bool(val, p)?,
        ".is_volatile" | "IsVolatile" => a.is_volatile = cx.bool(val, p)?,
        ".is_pipe" | "IsPipe" => a.is_pipe = cx.bool(val, p)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn arg_v3(cx: &Ctx, v: &Value, path: &Path) -> Result<KernelArg> {
    let mut a = KernelArg::default();
    let mut seen = [false; 3];
    for (key, val) in cx.map(v, path)? {
        let name = key_str(key);
        let p = Path::Key(path, &name);
        match &*name {
            ".offset" => (a.offset, seen[0]) = (cx.u32(val, &p)?, true),
            ".size" => (a.size, seen[1]) = (cx.u32(val, &p)?, true),
            ".value_kind" => {
                (a.value_kind, seen[2]) = (ValueKind::from_v3(&cx.string(val, &p)?), true)
            }
            n => {
                if !arg_common(cx, &mut a, n, val, &p)? {
                    a.extra.push((name.into_owned(), val.clone()));
                }
            }
        }
    }
    require_keys(cx, path, &[".offset", ".size", ".value_kind"], &seen)?;
    Ok(a)
}

fn kernel_v2(cx: &Ctx, v: &Value, path: &Path) -> Result<Kernel> {
    let mut k = Kernel::default();
    let mut seen = [false; 2];
    for (key, val) in cx.map(v, path)? {
        let name = key_str(key);
        let p = Path::Key(path, &name);
        match &*name {
            "Name" => (k.name, seen[0]) = (cx.string(val, &p)?, true),
            "SymbolName" => (k.symbol, seen[1]) = (cx.string(val, &p)?, true),
            "Language" => k.language = Some(cx.string(val, &p)?),
            "LanguageVersion" => k.language_version = Some(cx.u32_array(val, &p)?),
            "Attrs" => {
                for (ak, av) in cx.map(val, &p)? {
                    let an = key_str(ak);
                    let ap = Path::Key(&p, &an);
                    match &*an {
                        "ReqdWorkGroupSize" => k.reqd_workgroup_size = Some(cx.dim3(av, &ap)?),
                        "WorkGroupSizeHint" => k.workgroup_size_hint = Some(cx.dim3(av, &ap)?),
                        "VecTypeHint" => k.vec_type_hint = Some(cx.string(av, &ap)?),
                        "RuntimeHandle" => k.runtime_handle = Some(cx.string(av, &ap)?),
                        _ => k.extra.push((format!("Attrs.{an}"), av.clone())),
                    }
                }
            }
            "Args" => {
                let mut offset: u64 = 0;
                for (i, a) in cx.array(val, &p)?.iter().enumerate() {
                    let ap = Path::Index(&p, i);
                    let mut arg = arg_v2(cx, a, &ap)?;
                    let align = u64::from(arg.align.unwrap_or(1).max(1));
                    if !align.is_power_of_two() {
                        return Err(cx.err(
                            &Path::Key(&ap, "Align"),
                            format!("{align} is not a power of two"),
                        ));
                    }
                    offset = offset.div_ceil(align) * align;
                    arg.offset = u32::try_from(offset)
                        .map_err(|_| cx.err(&ap, "argument offset exceeds 2^32"))?;
                    offset += u64::from(arg.size);
                    k.args.push(arg);
                }
            }
            "CodeProps" => {
                for (ck, cv) in cx.map(val, &p)? {
                    let cn = key_str(ck);
                    let cp = Path::Key(&p, &cn);
                    match &*cn {
                        "KernargSegmentSize" => k.kernarg_segment_size = cx.u32(cv, &cp)?,
                        "GroupSegmentFixedSize" => k.group_segment_fixed_size = cx.u32(cv, &cp)?,
                        "PrivateSegmentFixedSize" => {
                            k.private_segment_fixed_size = cx.u32(cv, &cp)?
                        }
                        "KernargSegmentAlign" => k.kernarg_segment_align = cx.u32(cv, &cp)?,
                        "WavefrontSize" => k.wavefront_size = cx.u32(cv, &cp)?,
                        "NumSGPRs" => k.sgpr_count = cx.u32(cv, &cp)?,
                        "NumVGPRs" => k.vgpr_count = cx.u32(cv, &cp)?,
                        "MaxFlatWorkGroupSize" => k.max_flat_workgroup_size = cx.u32(cv, &cp)?,
                        "NumSpilledSGPRs" => k.sgpr_spill_count = Some(cx.u32(cv, &cp)?),
                        "NumSpilledVGPRs" => k.vgpr_spill_count = Some(cx.u32(cv, &cp)?),
                        "IsDynamicCallStack" => k.uses_dynamic_stack = Some(cx.bool(cv, &cp)?),
                        _ => k.extra.push((format!("CodeProps.{cn}"), cv.clone())),
                    }
                }
            }
            _ => k.extra.push((name.into_owned(), val.clone())),
        }
    }
    require_keys(cx, path, &[".Name", ".SymbolName"], &seen)?;
    Ok(k)
}

fn arg_v2(cx: &Ctx, v: &Value, path: &Path) -> Result<KernelArg> {
    let mut a = KernelArg::default();
    let mut seen = [false; 3];
    for (key, val) in cx.map(v, path)? {
        let name = key_str(key);
        let p = Path::Key(path, &name);
        match &*name {
            "Size" => (a.size, seen[0]) = (cx.u32(val, &p)?, true),
            "Align" => (a.align, seen[1]) = (Some(cx.u32(val, &p)?), true),
            "ValueKind" => {
                (a.value_kind, seen[2]) = (ValueKind::from_v2(&cx.string(val, &p)?), true)
            }
            n => {
                if !arg_common(cx, &mut a, n, val, &p)? {
                    a.extra.push((name.into_owned(), val.clone()));
                }
            }
        }
    }
    require_keys(cx, path, &[".Size", ".Align", ".ValueKind"], &seen)?;
    Ok(a)
}
