"""Asks the oracle about every opcode number of every family on every target.

Writes JSON: target -> family -> opcode -> [fields, text, nwords] for the valid probe with the
most fields set (ties: the earlier probe, whose sources are VGPRs).
"""
import json
import sys
import oracle
from families import FAMILIES, TARGETS, variants


def main(out):
    result = {}
    for t in TARGETS:
        probes, keys = [], []
        for fam, (n, enc, _) in FAMILIES.items():
            vs = list(variants(fam))
            for op in range(n):
                for f in vs:
                    probes.append(enc(op, f))
                    keys.append((fam, op, f))
        res = oracle.disassemble(t, probes)
        tr = result.setdefault(t, {})
        for (fam, op, f), r in zip(keys, res):
            if r is None:
                continue
            best = tr.setdefault(fam, {}).get(str(op))
            if best is None or len(f) > len(best[0]):
                tr[fam][str(op)] = [f, r[0], r[1]]
        print(t, {fam: len(v) for fam, v in tr.items()}, file=sys.stderr)
    json.dump(result, open(out, "w"), indent=0, sort_keys=True)


main(sys.argv[1])
