#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/seed-* from the golden vectors (see seed.py). Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
python3 seed.py
