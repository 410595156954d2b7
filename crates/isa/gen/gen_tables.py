"""Writes src/tables/generated.rs: per generation and family, what every opcode number is.

Input: data/probes.json from enumerate.py (llvm-objdump-15's text for the probe with the most
operand fields set). Each entry records the Opcode, the printed mnemonic, and the operands in
printed order as (field, register class, width in dwords). A second round of probes asks the
oracle how inline constants print for every VALU/SALU source, which gives each source's
constant kind.
"""
import json
import os
import re
import sys
import oracle
from families import FAMILIES, GFX1030_W64, V, families
from names import opcode_name

GENS = {"Gfx8": ["gfx803"], "Gfx900": ["gfx900"], "Gfx9": ["gfx908", "gfx906"], "Gfx90a": ["gfx90a"], "Gfx940": ["gfx940"],
        "Gfx10": ["gfx1030"]}
# LLVM_VERSION=22: the generations only LLVM 22 knows, written to their own file
# (src/tables/generated_llvm22.rs) with their own width table.
LLVM22 = oracle.LLVM == "22"
if LLVM22:
    GENS = {"Gfx942": ["gfx942"], "Gfx950": ["gfx950"]}
# Generations whose tables also say which operands are lane masks (wave32: one SGPR, wave64: a
# pair), found by disassembling the same words with the wave64 feature.
WAVE64_VIEW = {"Gfx10": GFX1030_W64}
# TABLES=rdna (with LLVM_VERSION=22): the RDNA generations LLVM 22 knows, from
# data/probes-rdna.json to src/tables/generated_rdna.rs (`WIDTHS_RDNA`, GFX11 MTBUF formats).
RDNA = LLVM22 and os.environ.get("TABLES") == "rdna"
if RDNA:
    GENS = {"Gfx11": ["gfx1100", "gfx1151"]}
    WAVE64_VIEW = {"Gfx11": "gfx1100+wavefrontsize64"}
# TABLES=gfx12 (with LLVM_VERSION=22): GFX12 (RDNA4), from data/probes-gfx12.json to
# src/tables/generated_gfx12.rs (`WIDTHS_GFX12`; MTBUF formats as GFX11's).
GFX12 = LLVM22 and os.environ.get("TABLES") == "gfx12"
if GFX12:
    GENS = {"Gfx12": ["gfx1200", "gfx1201"]}
    WAVE64_VIEW = {"Gfx12": "gfx1200+wavefrontsize64"}
# Generations whose VOP3/VOP3P take a literal constant.
VOP3_LITERAL = ("Gfx10", "Gfx11", "Gfx12")

# `v1.l`/`v1.h`: a 16-bit half of a VGPR (GFX11 true16 operands; register class `t`).
REG = re.compile(r"^([vsa])(\d+)(\.[lh])?$|^([vsa])\[(\d+):(\d+)\]$")
SCALE = {"sbase": 2, "srsrc": 4, "ssamp": 4}
FIELD_RUST = {
    "vdst": "Vdst", "sdst": "Sdst", "src0": "Src0", "src1": "Src1", "src2": "Src2", "vsrc1": "Vsrc1",
    "simm16": "Simm16", "sdata": "Sdata", "sbase": "Sbase", "offset": "SmOffset", "addr": "Addr",
    "data0": "Data0", "data1": "Data1", "data": "Data", "saddr": "Saddr", "vdata": "Vdata",
    "vaddr": "Vaddr", "srsrc": "Srsrc", "soffset": "Soffset", "ssamp": "Ssamp",
}


def split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse(fam, fields, text):
    """(mnemonic, [slot], [modifier tokens]) where slot = (field, class, width) or ('Fixed', token)."""
    mn, _, rest = text.partition(" ")
    if fam == "Ds" and rest.startswith(("offset:", "gds")):
        return mn, [], rest.split(" ")  # ds_gws_sema_*: no operand, only modifiers
    ops = split_operands(rest)
    mods = []
    if ops:
        last = ops[-1].split(" ")
        ops[-1] = last[0]
        mods = last[1:]
    if fam in ("Sopp",):
        return mn, [], ops + mods
    if fam == "Exp":
        return mn, [], []  # target, four VGPRs or `off`, done, row_en: formatted by hand
    slots = []
    for tok in ops:
        if fam == "Mimg" and tok.startswith("["):
            # GFX12 VIMAGE/VSAMPLE: the separate address VGPRs; the slot is the first (vaddr0).
            tok = split_operands(tok[1:-1])[0]
        m = REG.match(tok)
        if m:
            cls = m.group(1) or m.group(4)
            if m.group(3):
                cls = "t"
            num = int(m.group(2) or m.group(5))
            width = 1 if m.group(2) else int(m.group(6)) - num + 1
            found = None
            for fname, val in fields.items():
                if fname in ("imm", "offset", "offset0", "offset1", "simm16", "dmask", "sve", "offen", "opsel_hi", "r128"):
                    continue
                pv = val - V if val >= V else val
                if fname in SCALE:
                    pv = val * SCALE[fname]
                if pv == num:
                    found = fname
                    break
            if found is None and fam == "Vop3" and tok in ("s[0:1]", "s0"):
                found = "sdst"  # VOP3b carry-out, 0 in the probe (wave64 / wave32)
            if found is None:
                raise ValueError("cannot place %s in %r (%s)" % (tok, text, fields))
            slots.append((found, cls, width))
        elif tok in ("vcc", "off", "exec"):
            slots.append(("Fixed", tok))
        elif tok == "vcc_lo" and fam in ("Vop1", "Vop2", "Vopc"):
            slots.append(("Fixed", "vcc"))  # the implicit vcc in wave32
        elif re.match(r"^(0x[0-9a-f]+|-?\d+)$", tok):
            if fam == "Sopk":
                slots.append(("simm16", "i", 1))
            elif fam == "Smem" and tok == "0x10":
                slots.append(("offset", "i", 1))
            elif fam == "Smem":
                slots.append(("sdata", "i", 1))
            elif fam in ("Vop2", "VopdX", "VopdY", "Sop2"):
                slots.append(("Lit", "i", 1))
            else:
                slots.append(("Num", tok))
        elif fam == "Sopk" and re.match(r"^-?\d+\.\d+$", tok):
            slots.append(("Lit", "i", 1))
        else:
            slots.append(("Special", tok))
    return mn, slots, mods


def main(probes_json, out):
    d = json.load(open(probes_json))
    tables = {}
    for gen, targets in GENS.items():
        tab = {}
        for t in targets:
            for fam, ops in d[t].items():
                for op, (fields, text, nwords) in ops.items():
                    key = (fam, int(op))
                    name = opcode_name(t, text)
                    if key in tab:
                        if tab[key][0] != name:
                            print("conflict", gen, key, tab[key][0], name, file=sys.stderr)
                        continue
                    mn, slots, mods = parse(fam, fields, text)
                    tab[key] = (name, mn, slots, mods, fields, t)
        tables[gen] = tab
    probe_mods(tables, d)
    masks = probe_lane_masks(tables)
    sopp_hex(tables)
    formats = None
    if RDNA:
        formats = probe_formats("gfx1100", "GFX11")
    elif not LLVM22 and not GFX12:
        formats = probe_formats("gfx1030", "GFX10")
    write_rust(tables, out, masks, formats)
    if not LLVM22 and not RDNA and not GFX12:
        write_mimg_vaddr(out, probe_mimg_vaddr(d["gfx1030"].get("Mimg", {})))
    if GFX12:
        write_mimg12_vaddr(out, *probe_mimg12_vaddr(d["gfx1200"].get("Mimg", {})))


SRC_SHIFT = {"src0": 0, "src1": 9, "src2": 18}


def src_tokens(fam, fields, text):
    """Printed operand tokens, in slot order, with their modifiers still attached."""
    mn, _, rest = text.partition(" ")
    ops = split_operands(rest)
    if ops:
        last = ops[-1].split(" ")
        ops[-1] = last[0]
        # `-|v1|` never contains spaces; trailing modifiers follow the last operand
    return ops, text.split(" ")


def reg_width(tok):
    """(class, width) of a printed register token (modifiers stripped), or None."""
    tok = tok.strip("-|")
    if tok.startswith("sext(") or tok.startswith("neg("):
        tok = tok[tok.index("(") + 1:-1]
    if tok in ("vcc_lo", "exec_lo"):
        return ("s", 1)
    if tok in ("vcc", "exec"):
        return ("s", 2)
    m = REG.match(tok)
    if not m:
        return None
    if m.group(2):
        return (m.group(1), 1)
    return (m.group(4), int(m.group(6)) - int(m.group(5)) + 1)


def operand_tokens(text):
    _, _, rest = text.partition(" ")
    ops = split_operands(rest)
    if ops:
        ops[-1] = ops[-1].split(" ")[0]
    return ops


def probe_lane_masks(tables):
    """Which operands of each VALU row are lane masks: the slots that print one SGPR (or
    `vcc_lo`) in wave32 and an SGPR pair (or `vcc`) in wave64, for the row's probe and for an
    SGPR in each source. Returns {(gen, key): set of slot indices}."""
    masks = {}
    for gen, target64 in WAVE64_VIEW.items():
        if gen not in tables:
            continue
        tab = tables[gen]
        target = GENS[gen][0]
        keys, probes = [], []
        for key, e in tab.items():
            fam, op = key
            if fam not in ("Vop1", "Vop2", "Vopc", "Vop3", "Vop3p"):
                continue
            name, mn, slots, mods, fields, t = e[:6]
            base = families(target)[fam][1](op, fields)
            keys.append((key, None))
            probes.append(base)
            for sname in ("src0", "src1", "src2"):
                if sname not in fields:
                    continue
                w = list(base)
                if fam in ("Vop3", "Vop3p"):
                    sh = SRC_SHIFT[sname]
                    w[1] = (w[1] & ~(0x1FF << sh)) | (24 << sh)
                else:
                    w[0] = (w[0] & ~0x1FF) | 24
                keys.append((key, sname))
                probes.append(w)
        r32 = oracle.disassemble(target, probes)
        r64 = oracle.disassemble(target64, probes)
        for (key, sname), a, b in zip(keys, r32, r64):
            if a is None or b is None:
                continue
            slots = tab[key][2]
            ta, tb = operand_tokens(a[0]), operand_tokens(b[0])
            if len(ta) != len(tb):
                raise ValueError("wave32/wave64 operand counts differ: %r %r" % (a, b))
            for i, (x, y) in enumerate(zip(ta, tb)):
                if i >= len(slots) or (sname is not None and slots[i][0] != sname):
                    continue
                wx, wy = reg_width(x), reg_width(y)
                if wx and wy and wx[0] == "s" and wy == ("s", 2 * wx[1]):
                    masks.setdefault((gen, key), set()).add(i)
    return masks


def sopp_hex(tables):
    """SOPP rows whose immediate prints in hex even when small (`s_clause 0x3`): flag bit 0."""
    for gen, tab in tables.items():
        for key, e in tab.items():
            if key[0] == "Sopp":
                mods = e[3]
                flag = 1 if mods and mods[0].startswith("0x") else 0
                tab[key] = e[:6] + (flag,)


def probe_formats(target, prefix):
    """GFX10/GFX11 MTBUF: how llvm-objdump prints each 7-bit unified format value (`format:[…]`,
    `format:N`, or nothing for the default). Returns (table name prefix, texts)."""
    enc = families(target)["Mtbuf"][1]
    probes = []
    for fmt in range(128):
        w = enc(0, {"vdata": 10, "vaddr": 20, "srsrc": 4, "soffset": 30})
        w[0] = (w[0] & ~(0x7F << 19)) | (fmt << 19)
        probes.append(w)
    out = []
    for fmt, r in enumerate(oracle.disassemble(target, probes)):
        if r is None:
            raise ValueError("format %d does not decode" % fmt)
        tok = [t for t in r[0].split(" ") if t.startswith("format:")]
        out.append(tok[0] if tok else "")
    return prefix, out


# NSA probes: the extra address bytes name v28, v29, … so each printed address is recognisable.
NSA_WORDS = [0x1F1E1D1C, 0x23222120, 0x27262524]


def probe_mimg_vaddr(ops):
    """GFX10 MIMG: how many address VGPRs llvm-objdump prints for each opcode with each
    dim (0-7), a16 (bit 3) and NSA dword count (bits 5:4); 0 where it does not decode. The
    printed width of a register tuple (non-NSA) is what LLVM picks from the opcode's address
    variants, so it is taken from the oracle rather than computed."""
    from families import enc_mimg10
    keys, probes = [], []
    for op, (fields, text, _) in ops.items():
        # dmask as wide as the data operand the probe printed (2 for the cmpswaps): LLVM
        # re-sizes the address operand only together with a data size the opcode has.
        vdata = reg_width(split_operands(text.partition(" ")[2])[0])[1]
        fields = dict(fields, dmask=(1 << min(vdata, 4)) - 1)
        for k in range(64):
            dim, a16, nsa = k & 7, (k >> 3) & 1, k >> 4
            w = enc_mimg10(int(op), fields)
            w[0] |= (dim << 3) | (nsa << 1)
            w[1] |= a16 << 30
            keys.append((int(op), k))
            probes.append(w + NSA_WORDS[:nsa])
    table = {}
    for (op, k), r in zip(keys, oracle.disassemble("gfx1030", probes)):
        n = 0
        if r is not None:
            toks = split_operands(r[0].partition(" ")[2])
            addr = [t for t in toks if t.startswith("[") or re.match(r"^v(20|\[20:\d+\])$", t)]
            if addr and addr[0].startswith("["):
                n = len(split_operands(addr[0][1:-1]))
            elif addr:
                n = reg_width(addr[0])[1]
        table.setdefault(op, [0] * 64)[k] = n
    return table


def write_mimg_vaddr(out, table):
    with open(out, "a") as o:
        o.write("\n/// GFX10 MIMG: the address VGPRs llvm-objdump prints, per opcode number and\n")
        o.write("/// `dim | a16 << 3 | nsa << 4` (0: the oracle rejects the encoding).\n")
        o.write("#[rustfmt::skip]\npub(crate) static GFX10_MIMG_VADDR: [[u8; 64]; 256] = [\n")
        for op in range(256):
            row = table.get(op, [0] * 64)
            o.write("    [%s],\n" % ", ".join(str(x) for x in row))
        o.write("];\n")


def probe_mimg12_vaddr(ops):
    """GFX12 VIMAGE/VSAMPLE: the address VGPRs llvm-objdump prints for each opcode with each
    dim (bits 2:0 of the key), a16 (bit 3) and r128 (bit 4), with a dmask as wide as the
    opcode's data. Returns ({op: [value] * 32}, {op: [widths]}): the value is the number of
    address dwords (0: rejected), plus 0x80 where LLVM has no opcode variant of that size and
    falls back to the first one it decoded (data at the row's width, whatever dmask says). The addresses are
    separate VGPRs, the last taking what the encoding's 5 (VIMAGE) or 4 (VSAMPLE) fields do not
    hold; the ray-tracing rows have fixed widths instead (the second map, by opcode and key).
    The third map: {op: (data, addresses)} of the first variant, where LLVM falls back to it."""
    from families import enc_mimg12
    keys, probes = [], []
    for op, (fields, text, _) in ops.items():
        # The data at a size other than the first variant's (twice the row's; a gather's 4
        # channels plus tfe's), so that a fallback to the first variant shows in the data too.
        vdata = reg_width(split_operands(text.partition(" ")[2])[0])[1]
        gather = text.startswith("image_gather4")
        bvh = "r128" in fields
        want = vdata if bvh else 5 if gather else 2 if "atomic" not in text else 2 * vdata
        f = dict(fields, dmask=fields["dmask"] if gather or bvh else (1 << want) - 1)
        for k in range(32):
            w = enc_mimg12(int(op), dict(f, r128=0))
            w[0] |= (k & 7) | ((k >> 3) & 1) << 6 | (k >> 4) << 4 | (1 << 3 if gather else 0)
            keys.append((int(op), k, want))
            probes.append(w)
    # Each row's first variant (what LLVM keeps when it has none of the data size): probed
    # with a data size the row has no variant of: gathers 3 (d16 and tfe), atomics 1 below or
    # 2 above their base width.
    firsts, fprobes = [], []
    for op, (fields, text, _) in ops.items():
        vdata = reg_width(split_operands(text.partition(" ")[2])[0])[1]
        if text.startswith("image_gather4"):
            w = enc_mimg12(int(op), fields)
            w[0] |= (1 << 3) | (1 << 5)
        elif "atomic" in text:
            w = enc_mimg12(int(op), dict(fields, dmask=1 if vdata > 1 else 0xF))
        else:
            continue
        firsts.append(int(op))
        fprobes.append(w)
    first = {}
    for op, r in zip(firsts, oracle.disassemble("gfx1200", fprobes)):
        toks = split_operands(r[0].partition(" ")[2])
        addr = toks[1]
        n = sum(reg_width(a)[1] for a in split_operands(addr[1:-1])) if addr.startswith("[") else reg_width(addr)[1]
        first[op] = (reg_width(toks[0])[1], n)
    table, fixed = {}, {}
    for (op, k, want), r in zip(keys, oracle.disassemble("gfx1200", probes)):
        n = 0
        if r is not None and "/*" not in r[0]:
            toks = split_operands(r[0].partition(" ")[2])
            addr = toks[1]
            widths = [reg_width(a)[1] for a in split_operands(addr[1:-1])] if addr.startswith("[") else [reg_width(addr)[1]]
            n = sum(widths)
            most = 4 if len(toks) > 3 and not toks[3].startswith(("dmask", "dim")) else 5
            regular = all(x == 1 for x in widths[:-1]) and len(widths) == min(n, most)
            if not regular:
                fixed[(op, k)] = widths
            if reg_width(toks[0])[1] != want:
                n |= 0x80
        table.setdefault(op, [0] * 32)[k] = n
        if n & 0x80:
            data = reg_width(toks[0])[1]
            if first.setdefault(op, (data, n & 0x7F)) != (data, n & 0x7F):
                raise ValueError("opcode %d: first variants %r and %r" % (op, first[op], (data, n)))
    return table, fixed, first


def write_mimg12_vaddr(out, table, fixed, first):
    with open(out, "a") as o:
        o.write("\n/// GFX12 VIMAGE/VSAMPLE: the address dwords llvm-objdump prints, per opcode number and\n")
        o.write("/// `dim | a16 << 3 | r128 << 4` (0: the oracle rejects the encoding; bit 7: LLVM has no\n")
        o.write("/// variant of that size and prints its first one, data at the row's width).\n")
        o.write("#[rustfmt::skip]\npub(crate) static GFX12_MIMG_VADDR: [[u8; 32]; 256] = [\n")
        for op in range(256):
            o.write("    [%s],\n" % ", ".join(str(x) for x in table.get(op, [0] * 32)))
        o.write("];\n")
        o.write("\n/// GFX12 ray-tracing VIMAGE rows: per opcode number and key (as above), the width of each\n")
        o.write("/// address operand (0: none).\n")
        o.write("#[rustfmt::skip]\npub(crate) static GFX12_MIMG_BVH: &[(u8, u8, [u8; 5])] = &[\n")
        for (op, k) in sorted(fixed):
            ws = fixed[(op, k)] + [0] * (5 - len(fixed[(op, k)]))
            o.write("    (%d, %d, [%s]),\n" % (op, k, ", ".join(str(x) for x in ws)))
        o.write("];\n")
        o.write("\n/// GFX12 VIMAGE/VSAMPLE: per opcode number, the data and address dwords of the first variant\n")
        o.write("/// LLVM decodes, which it prints when it has no variant of the instruction's sizes.\n")
        o.write("#[rustfmt::skip]\npub(crate) static GFX12_MIMG_FIRST: &[(u8, u8, u8)] = &[\n")
        for op in sorted(first):
            o.write("    (%d, %d, %d),\n" % (op, first[op][0], first[op][1]))
        o.write("];\n")


def probe_mods(tables, d):
    """Adds `mods` (bit flags) to every VALU entry: which sources take neg/abs, whether clamp,
    omod and op_sel print, and which sources are VGPR-only fields."""
    for gen, tab in tables.items():
        target = GENS[gen][0]
        keys, probes = [], []
        for key, e in tab.items():
            fam, op = key
            if fam not in ("Vop1", "Vop2", "Vopc", "Vop3", "Vop3p"):
                continue
            name, mn, slots, mods, fields, t = e
            enc = families(target)[fam][1]
            base = enc(op, fields)
            srcs = [f for f in ("src0", "src1", "src2") if f in fields]
            if LLVM22:
                # LLVM 22 accepts (and ignores) unused source fields: only printed ones count.
                printed = {sl[0] for sl in slots if len(sl) == 3}
                srcs = [f for f in srcs if f in printed]
            vop3b = any(sl[0] == "sdst" for sl in slots if len(sl) == 3)
            if fam == "Vop3":
                nmask = (1 << len(srcs)) - 1
                for extra in ((1 << 15, 0), (0, 1 << 27)):
                    w = list(base)
                    w[0] |= extra[0]
                    w[1] |= extra[1]
                    keys.append((gen, key, "mods", None)); probes.append(w)
                for i in range(len(srcs)):
                    w = list(base)
                    if not vop3b:
                        w[0] |= 1 << (8 + i)
                    w[1] |= 1 << (29 + i)
                    keys.append((gen, key, "mods", None)); probes.append(w)
                if not vop3b:
                    # GFX11 true16 rows fall back to their fake16 form (no op_sel) when op_sel
                    # sets bits of absent operands: probe with src0's bit only.
                    t16 = any(len(sl) == 3 and sl[1] == "t" for sl in slots)
                    w = list(base); w[0] |= (1 if t16 else nmask | 8) << 11
                    keys.append((gen, key, "opsel", None)); probes.append(w)
            if fam in ("Vop1", "Vop2", "Vopc") and "src0" in fields:
                nsrc = 2 if "vsrc1" in fields else 1
                for i in range(nsrc):
                    for kind, ext in (("dpp_neg", 0xFA), ("dpp_abs", 0xFA), ("sdwa_mods", 0xF9), ("sdwa_sext", 0xF9)):
                        w = [(base[0] & ~0x1FF) | ext]
                        if ext == 0xFA:
                            bits = (1 << (20 + 2 * i)) if kind == "dpp_neg" else (1 << (21 + 2 * i))
                            w.append(20 | (0xE4 << 8) | (0xF << 24) | (0xF << 28) | bits)
                        else:
                            bits = (3 << (20 + 8 * i)) if kind == "sdwa_mods" else (1 << (19 + 8 * i))
                            # LLVM (15 and 22) rejects a VOP1 SDWA word whose (unused) src1_sel is set.
                            src1_sel = 0 if nsrc == 1 else 6
                            w.append(20 | (6 << 8) | (6 << 16) | (src1_sel << 24) | bits)
                        keys.append((gen, key, kind, None)); probes.append(w)
            for sname in srcs:
                for kind, val in (("inv2pi", 248), ("lit", 255), ("lit16", 255)):
                    # VOP3 takes literals from GFX10 on.
                    vop3_lit = gen in VOP3_LITERAL and fam in ("Vop3", "Vop3p")
                    if kind == "lit" and not vop3_lit and (fam not in ("Vop1", "Vop2", "Vopc") or sname != "src0"):
                        continue
                    if kind == "lit16" and not (vop3_lit and fam == "Vop3p"):
                        continue
                    w = list(base)
                    if fam in ("Vop3", "Vop3p"):
                        sh = SRC_SHIFT[sname]
                        w[1] = (w[1] & ~(0x1FF << sh)) | (val << sh)
                    else:
                        w[0] = (w[0] & ~0x1FF) | val
                    if kind == "lit":
                        # LLVM 22 prints an inline-able literal as lit(…): use one that is not.
                        w = w + [0x12345678 if LLVM22 else 0x3F800000]
                    if kind == "lit16":
                        w = w + [0x3C00]
                    keys.append((gen, key, kind, sname)); probes.append(w)
                w = list(base)
                if fam in ("Vop3", "Vop3p"):
                    sh = SRC_SHIFT[sname]
                    w[1] = (w[1] & ~(0x1FF << sh)) | (24 << sh)
                else:
                    w[0] = (w[0] & ~0x1FF) | 24
                keys.append((gen, key, "sgpr", sname)); probes.append(w)
        res = oracle.disassemble(target, probes)
        info = {}
        for (g, key, kind, sname), r in zip(keys, res):
            m = info.setdefault(key, {"mods": 0, "vonly": 0, "kinds": 0, "lit32": 0})
            fam, op = key
            name, mn, slots, mods, fields, t = tab[key]
            src_names = [sl[0] for sl in slots if len(sl) == 3 and sl[0] in ("src0", "src1", "src2")]
            if kind.startswith("dpp_") or kind.startswith("sdwa_"):
                if r is None:
                    continue
                _, _, rest = r[0].partition(" ")
                ops = split_operands(rest)
                if ops:
                    ops[-1] = ops[-1].split(" ")[0]
                for i, sl in enumerate(slots):
                    if len(sl) == 3 and sl[0] in ("src0", "vsrc1") and i < len(ops):
                        idx = 0 if sl[0] == "src0" else 1
                        tok = ops[i]
                        base_bit = {"dpp_neg": 24, "dpp_abs": 24, "sdwa_mods": 28, "sdwa_sext": 30}[kind]
                        if tok.startswith("sext("):
                            m["mods"] |= 1 << (base_bit + 2 + idx) if kind.startswith("dpp") else 1 << (30 + idx)
                        elif tok.startswith("-") or tok.startswith("|"):
                            m["mods"] |= 1 << (base_bit + idx)
                continue
            if kind in ("inv2pi", "lit", "lit16"):
                idx = ("src0", "src1", "src2").index(sname)
                if r is None:
                    continue
                toks = r[0].replace(",", " ").split()
                k = None
                if kind == "inv2pi":
                    if "0x3118" in toks:
                        k = 3  # I16
                    elif "0.15915494309189532" in toks:
                        k = 1  # B64
                elif kind == "lit16":
                    if "1.0" in toks:
                        k = 2  # F16: 0x3c00 is 1.0
                elif LLVM22:
                    if "0x5678" in toks:
                        k = 2  # F16 (a 16-bit literal)
                    elif "0x12345678" in toks:
                        m["lit32"] |= 1 << idx
                elif "0" in toks[1:] and "1.0" not in toks:
                    k = 2  # F16 (a 16-bit literal)
                elif "1.0" in toks:
                    m["lit32"] |= 1 << idx  # the literal printed as a 32-bit value
                if k is not None:
                    cur = (m["kinds"] >> (2 * idx)) & 3
                    if cur == 0:
                        m["kinds"] |= k << (2 * idx)
                continue
            if kind == "sgpr":
                idx = ("src0", "src1", "src2").index(sname)
                if r is None or re.search(r"\bs24\b|s\[24:", r[0]) is None:
                    m["vonly"] |= 1 << idx
                continue
            if r is None:
                continue
            text = r[0]
            _, _, rest = text.partition(" ")
            ops = split_operands(rest)
            if ops:
                tail = ops[-1].split(" ")
                ops[-1] = tail[0]
                tail = tail[1:]
            else:
                tail = []
            # the slots print in order; find source slots by position
            for i, sl in enumerate(slots):
                if len(sl) == 3 and sl[0] in ("src0", "src1", "src2") and i < len(ops):
                    idx = ("src0", "src1", "src2").index(sl[0])
                    tok = ops[i]
                    if kind == "mods" and (tok.startswith("-") or tok.startswith("|")):
                        m["mods"] |= 1 << idx
                    if kind == "mods" and tok.startswith("sext("):
                        m["mods"] |= 1 << (12 + idx)
            if kind == "mods":
                if "clamp" in tail:
                    m["mods"] |= 1 << 3
                if "mul:2" in tail:
                    m["mods"] |= 1 << 4
            if kind == "opsel" and any(x.startswith("op_sel") for x in tail):
                m["mods"] |= 1 << 5
        for key, m in info.items():
            e = tab[key]
            # Packed 16-bit sources (GFX10 VOP3P): a literal above 0xffff prints as a 32-bit
            # value, a smaller one by the 16-bit type.
            packed = any(m["lit32"] >> i & 1 and (m["kinds"] >> (2 * i)) & 3 in (2, 3) for i in range(3))
            if packed and key[0] == "Vop3p":
                m["mods"] |= 1 << 6
            tab[key] = e + ((m["mods"] | (m["vonly"] << 8) | (m["kinds"] << 16)),)


def slot_rust(slot, fam, mask=False):
    if slot[0] == "Fixed":
        return "Slot::fixed(F::%s)" % {"vcc": "Vcc", "off": "Off"}[slot[1]]
    if slot[0] == "Lit":
        return "Slot::fixed(F::Lit)"
    if slot[0] == "Num":
        return "Slot::fixed(F::Ssrc1Imm)"
    if slot[0] == "Special":
        if slot[1].startswith("hwreg"):
            return "Slot::fixed(F::Hwreg)"
        if slot[1].startswith("sendmsg"):
            return "Slot::fixed(F::Sendmsg)"  # GFX11 s_sendmsg_rtn_b32's ssrc0
        if re.match(r"^attr\d+\.[xyzw]$", slot[1]):
            return "Slot::fixed(F::Attr)"  # GFX11 lds_param_load's attribute and channel
        return None
    field, cls, width = slot
    if cls == "t":
        # A true16 VGPR half: one 16-bit operand, printed `vN.l`/`vN.h`.
        return "Slot::reg(F::%s, b't', 1)" % FIELD_RUST[field]
    if fam == "Sop2" or fam == "Sop1" or fam == "Sopc":
        field = {"ssrc0": "src0", "ssrc1": "src1", "sdst": "sdst"}[field]
    if fam == "Vop3" and field == "sdst":
        field = "sdst3"
    if fam == "Smem" and field == "soffset":
        return "Slot::fixed(F::SmOffset)"  # GFX10: `soffset`, printed with the offset
    if fam == "Smem" and cls == "i":
        return "Slot::fixed(F::SdataImm)" if field == "sdata" else "Slot::fixed(F::SmOffset)"
    if fam == "Sopk" and field == "simm16":
        return "Slot::fixed(F::Simm16)"
    rf = {"sdst3": "Sdst3"}.get(field) or FIELD_RUST[field]
    if mask:
        return "Slot::mask(F::%s, b'%s', %d)" % (rf, cls, width)
    return "Slot::reg(F::%s, b'%s', %d)" % (rf, cls, width)


# Which OpInfo width a field sets (see `build_info` in tables/mod.rs); None: none.
OPINFO_SLOT = {"Vdst": "dst", "Sdst": "dst", "Sdata": "dst", "Vdata": "dst",
               "Src0": "src0", "Addr": "src0", "Vaddr": "src0", "Sbase": "src0",
               "Src1": "src1", "Vsrc1": "src1", "Data0": "src1", "Data": "src1",
               "Src2": "src2", "Data1": "src2", "Saddr": "src2", "Srsrc": "src2"}


def write_rust(tables, out, masks, formats):
    o = open(out, "w")
    o.write("// Generated by crates/isa/gen/gen_tables.py from llvm-objdump-%s output; do not edit.\n" % oracle.LLVM)
    fams_of = {gen: families(GENS[gen][0]) for gen in tables}
    o.write("//! Per-generation opcode tables: for every family and opcode number, the Opcode, the\n")
    o.write("//! printed mnemonic and the operands in printed order (field, register class, dwords).\n\n")
    o.write("use super::{Entry, Fam, Slot, F};\nuse crate::opcode::Opcode;\n\n")
    info = {}
    for gen, tab in tables.items():
        for fam, (n, _, _) in fams_of[gen].items():
            o.write("#[rustfmt::skip]\npub(crate) static %s_%s: [Option<Entry>; %d] = [\n" % (gen.upper(), fam.upper(), n))
            for op in range(n):
                e = tab.get((fam, op))
                if e is None:
                    o.write("    None,\n")
                    continue
                name, mn, slots, mods, fields, t = e[:6]
                flags = e[6] if len(e) > 6 else 0
                m = masks.get((gen, (fam, op)), set())
                rs = [slot_rust(s, fam, i in m) for i, s in enumerate(slots)]
                if any(r is None for r in rs):
                    o.write("    None, // %s (not supported)\n" % mn)
                    continue
                o.write("    Some(Entry::new(Opcode::%s, \"%s\", 0x%x, Fam::%s, &[%s])),\n" % (name.upper(), mn, flags, fam, ", ".join(rs)))
                # Lane masks at their wave64 width.
                regs = [(s[0], s[1], 2 if i in m else s[2]) for i, s in enumerate(slots) if len(s) == 3 and s[1] in "vsat"]
                first = name not in info
                parts = info.setdefault(name, [])
                seen = {OPINFO_SLOT.get(rf) for rf, _ in parts}
                for field, cls, width in regs:
                    if fam in ("Sop2", "Sop1", "Sopc"):
                        field = {"ssrc0": "src0", "ssrc1": "src1", "sdst": "sdst"}[field]
                    rf = "Sdst3" if (fam == "Vop3" and field == "sdst") else FIELD_RUST[field]
                    # The first table with the opcode, completed by later ones (a VOP2 row has
                    # no src2, its VOP3 form does).
                    slot = OPINFO_SLOT.get(rf)
                    if first or (slot is not None and slot not in seen):
                        parts.append((rf, width))
                        seen.add(slot)
            o.write("];\n\n")
    o.write("/// Operand widths per opcode: (opcode, [(field, dwords)]), from the first table that has\n")
    o.write("/// it, completed by the others; lane masks at their wave64 width.\n")
    widths = "WIDTHS_GFX12" if GFX12 else "WIDTHS_RDNA" if RDNA else "WIDTHS_LLVM22" if LLVM22 else "WIDTHS"
    o.write("#[rustfmt::skip]\npub(crate) static %s: &[(Opcode, &[(F, u8)])] = &[\n" % widths)
    for name in sorted(info):
        parts = ["(F::%s, %d)" % p for p in info[name]]
        o.write("    (Opcode::%s, &[%s]),\n" % (name.upper(), ", ".join(parts)))
    o.write("];\n")
    if formats is None:
        return
    prefix, formats = formats
    o.write("\n")
    o.write("/// %s MTBUF: the printed form of each unified format value (empty: the default, not printed).\n" % prefix)
    o.write("#[rustfmt::skip]\npub(crate) static %s_MTBUF_FORMATS: [&str; 128] = [\n" % prefix)
    for f in formats:
        o.write("    \"%s\",\n" % f)
    o.write("];\n")


main(sys.argv[1], sys.argv[2])
