#!/bin/sh
# Remakes data/synonyms.tsv and data/associations.tsv from their inputs (data/README.md), on a
# Debian 12 (bookworm) machine, as root (apt fetches the inputs by package name):
#
#     sh mcp-tool-search/data/regenerate.sh
#
# Each input is checked against the SHA-256 it had when the tables were made; if Debian has
# since changed it, the script stops and says so (update the pin and the note in data/README.md
# on purpose, then measure the ranking again with `cargo bench -p mcp-tool-search`).
set -eu

data=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$data/debian_inputs.sh"

cargo run --release -p mcp-tool-search --example word_tables -- \
    --wordnet "$work/wordnet/usr/share/wordnet" \
    --descriptions "$work/Translation-en" \
    --out "$data" \
    --note "WordNet 3.0: Debian package wordnet-base $wordnet_version (sha256 $wordnet_sha256); licence in data/WORDNET-LICENSE" \
    --note "Package descriptions: Debian 12.15 (bookworm) main, i18n/Translation-en (sha256 of the uncompressed file $descriptions_sha256)"
