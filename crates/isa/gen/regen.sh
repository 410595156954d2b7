#!/bin/sh
# Regenerates every generated file of hsaemu-isa from the oracles: llvm-objdump-15/llvm-mc-15
# (GFX8, the GFX9 family to gfx940, GFX10.3) and llvm-objdump-22/llvm-mc-22 (gfx942, gfx950,
# GFX11 gfx1100/gfx1151 with TABLES=rdna into probes-rdna.json and generated_rdna.rs,
# GFX12 gfx1200/gfx1201 with TABLES=gfx12 into probes-gfx12.json and generated_gfx12.rs;
# see docs/architecture-isa.md, "two oracles"). Needs python3 and both LLVMs' tools; takes
# several minutes on an idle machine (the round-trip data is most of it).
#   data/probes.json, data/probes-llvm22.json
#                               what each opcode number of each family is, per target (enumerate.py)
#   ../src/opcode.rs            the Opcode enum, the union of both (gen_opcodes.py)
#   ../src/tables/semantics.rs  per-opcode semantic attributes (gen_semantics.py; no LLVM)
#   ../src/tables/generated.rs, generated_llvm22.rs
#                               per-generation decoding tables (gen_tables.py)
#   ../tests/data/roundtrip-*.txt  words -> llvm-objdump text for every opcode (gen_roundtrip.py)
set -eu
cd "$(dirname "$0")"
python3 enumerate.py data/probes.json
LLVM_VERSION=22 python3 enumerate.py data/probes-llvm22.json gfx942 gfx950
LLVM_VERSION=22 python3 enumerate.py data/probes-rdna.json gfx1100 gfx1151
LLVM_VERSION=22 python3 enumerate.py data/probes-gfx12.json gfx1200 gfx1201
python3 gen_opcodes.py data/probes.json data/probes-llvm22.json data/probes-rdna.json data/probes-gfx12.json ../src/opcode.rs
python3 gen_semantics.py ../src/opcode.rs ../src/tables/semantics.rs
python3 gen_tables.py data/probes.json ../src/tables/generated.rs
LLVM_VERSION=22 python3 gen_tables.py data/probes-llvm22.json ../src/tables/generated_llvm22.rs
LLVM_VERSION=22 TABLES=rdna python3 gen_tables.py data/probes-rdna.json ../src/tables/generated_rdna.rs
LLVM_VERSION=22 TABLES=gfx12 python3 gen_tables.py data/probes-gfx12.json ../src/tables/generated_gfx12.rs
python3 gen_roundtrip.py data/probes.json ../tests/data 4
LLVM_VERSION=22 python3 gen_roundtrip.py data/probes-llvm22.json ../tests/data 4
LLVM_VERSION=22 TABLES=rdna python3 gen_roundtrip.py data/probes-rdna.json ../tests/data 4
LLVM_VERSION=22 TABLES=gfx12 python3 gen_roundtrip.py data/probes-gfx12.json ../tests/data 4
