#!/usr/bin/env bash
# The main job: build hsaemu, compile an unmodified HIP program from tests/hip with Debian's
# hipcc (ROCm 5.2), and run it on the emulated GPU through ROCm's own HIP runtime on top of
# hsaemu's libhsa-runtime64.so.1. Then show the code object it carries and its kernel's
# machine code, as hsaemu sees them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -p hsaemu-cli -p hsa-runtime64
out=target/demo
mkdir -p "$out"
hipcc -O2 --offload-arch=gfx90a tests/hip/vector_add.hip -o "$out/vector_add"
hsaemu=target/release/hsaemu
echo "== hsaemu exec -- $out/vector_add   (HIP program on the emulated gfx90a)"
"$hsaemu" exec -- "$out/vector_add"
echo "== hsaemu inspect $out/vector_add"
"$hsaemu" inspect "$out/vector_add"
echo "== hsaemu disasm (first lines)"
"$hsaemu" disasm "$out/vector_add" | head -n 25
