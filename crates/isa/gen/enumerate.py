"""Asks the oracle about every opcode number of every family on every target.

Writes JSON: target -> family -> opcode -> [fields, text, nwords] for the valid probe with the
most fields set (ties: the earlier probe, whose sources are VGPRs).
"""
import json
import os
import sys
import oracle
from families import TARGETS, enc_vop3p, families, variants


def main(out, targets):
    result = json.load(open(out)) if targets != TARGETS and os.path.exists(out) else {}
    # FAMS=A,B: only those families are (re)probed; the others keep what OUT has.
    only = [f for f in os.environ.get("FAMS", "").split(",") if f]
    for t in targets:
        probes, keys = [], []
        for fam, (n, enc, _) in families(t).items():
            if only and fam not in only:
                continue
            vs = list(variants(fam, t))
            for op in range(n):
                if fam == "Vop2" and op >= 0x3E:
                    continue  # 0x3E/0x3F in these bits are the VOPC/VOP1 encodings
                for f in vs:
                    probes.append(enc(op, f))
                    keys.append((fam, op, f))
        res = oracle.disassemble(t, probes)
        tr = result[t] = {k: v for k, v in result.get(t, {}).items() if only and k not in only}
        for (fam, op, f), r in zip(keys, res):
            if r is None or (oracle.LLVM != "15" and "/*" in r[0]):
                # LLVM 22 prints fields it rejects with a `/* Invalid … */` comment.
                continue
            if fam in ("VopdX", "VopdY"):
                # A VOPD probe prints both halves: keep the probed one.
                halves = r[0].split(" :: ")
                if len(halves) != 2:
                    continue
                r = (halves[0 if fam == "VopdX" else 1].strip(), r[1])
            best = tr.setdefault(fam, {}).get(str(op))
            if best is None or len(f) > len(best[0]):
                tr[fam][str(op)] = [f, r[0], r[1]]
        if not only or "Ds" in only:
            gds_only(t, tr)
        mimg_r128(t, tr)
        opsel_hi_clear(t, tr)
        print(t, {fam: len(v) for fam, v in tr.items()}, file=sys.stderr)
    json.dump(result, open(out, "w"), indent=0, sort_keys=True)


def gds_only(t, tr):
    """DS opcodes that exist only with the GDS bit set (the global wave sync ds_gws_*): probed
    again with `gds`, which the ordinary probes leave 0. Not for LLVM 22's gfx942/gfx950 tables,
    which were generated without them (llvm-objdump-22 does print them there: a known gap)."""
    if oracle.LLVM != "15" and t.startswith("gfx9"):
        return
    n, enc, _ = families(t)["Ds"]
    known = tr.setdefault("Ds", {})
    probes, keys = [], []
    for op in range(n):
        if str(op) in known:
            continue
        for f in variants("Ds", t):
            f = dict(f, gds=1)
            probes.append(enc(op, f))
            keys.append((op, f))
    for (op, f), r in zip(keys, oracle.disassemble(t, probes)):
        if r is None:
            continue
        best = known.get(str(op))
        if best is None or len(f) > len(best[0]):
            known[str(op)] = [f, r[0], r[1]]


def mimg_r128(t, tr):
    """GFX12 VIMAGE opcodes that decode only with `r128` and `dmask` 0xf (the `image_bvh*` ray
    intersections, whose resource is 4 SGPRs): probed again with them."""
    if not t.startswith("gfx12") or "Mimg" not in tr:
        return
    n, enc, _ = families(t)["Mimg"]
    known = tr["Mimg"]
    probes, keys = [], []
    for op in range(n):
        if str(op) in known:
            continue
        for f in variants("Mimg", t):
            f = dict(f, r128=1, dmask=15)
            probes.append(enc(op, f))
            keys.append((op, f))
    for (op, f), r in zip(keys, oracle.disassemble(t, probes)):
        if r is None or "/*" in r[0]:
            continue
        best = known.get(str(op))
        if best is None or len(f) > len(best[0]):
            known[str(op)] = [f, r[0], r[1]]


def opsel_hi_clear(t, tr):
    """VOP3P opcodes that decode only with op_sel_hi 0 (gfx950's `v_mfma_f32_*_f8f6f4` in
    LLVM 22): probed again with `opsel_hi: 0`, which the ordinary probes leave at 1."""
    if families(t).get("Vop3p", (0, None))[1] is not enc_vop3p:
        return
    n, enc, _ = families(t)["Vop3p"]
    known = tr.setdefault("Vop3p", {})
    probes, keys = [], []
    for op in range(n):
        if str(op) in known:
            continue
        for f in variants("Vop3p", t):
            f = dict(f, opsel_hi=0)
            probes.append(enc(op, f))
            keys.append((op, f))
    for (op, f), r in zip(keys, oracle.disassemble(t, probes)):
        if r is None or (oracle.LLVM != "15" and "/*" in r[0]):
            continue
        best = known.get(str(op))
        if best is None or len(f) > len(best[0]):
            known[str(op)] = [f, r[0], r[1]]


# `enumerate.py OUT [TARGET…]`: with targets, only those are (re)probed and merged into OUT.
main(sys.argv[1], sys.argv[2:] or TARGETS)
