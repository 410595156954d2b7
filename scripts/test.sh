#!/usr/bin/env bash
# Runs every test of hsaemu: installs what is missing, then the whole workspace's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --workspace --all-targets
cargo test --workspace --no-fail-fast
