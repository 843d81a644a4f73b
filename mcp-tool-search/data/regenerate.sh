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

wordnet_version=1:3.0-37
wordnet_sha256=61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752
descriptions_sha256=62f59c3cdca9786e4f7adf9002f9f5729a684adcb4667e58e448dec9b5a46c7f

check() { # FILE SHA256 WHAT
    actual=$(sha256sum "$1" | cut -d' ' -f1)
    if [ "$actual" != "$2" ]; then
        echo "$3 is not the one the tables were made from (sha256 $actual, expected $2)." >&2
        echo "Debian changed it: pin the new one in $0 and data/README.md on purpose." >&2
        exit 1
    fi
}

# WordNet 3.0, as Debian packages it.
(cd "$work" && apt-get download "wordnet-base=$wordnet_version")
deb=$(ls "$work"/wordnet-base_*.deb)
check "$deb" "$wordnet_sha256" "wordnet-base $wordnet_version"
dpkg-deb -x "$deb" "$work/wordnet"

# Debian 12's package descriptions in English (apt leaves them out unless asked).
apt-get update -o Acquire::Languages=en >/dev/null
index=$(apt-get indextargets -o Acquire::Languages=en --format '$(FILENAME)' \
    'Identifier: Translations' 'Language: en' 'Codename: bookworm' 'Component: main')
/usr/lib/apt/apt-helper cat-file "$index" >"$work/Translation-en"
check "$work/Translation-en" "$descriptions_sha256" "bookworm main's Translation-en"

cargo run --release -p mcp-tool-search --example word_tables -- \
    --wordnet "$work/wordnet/usr/share/wordnet" \
    --descriptions "$work/Translation-en" \
    --out "$data" \
    --note "WordNet 3.0: Debian package wordnet-base $wordnet_version (sha256 $wordnet_sha256); licence in data/WORDNET-LICENSE" \
    --note "Package descriptions: Debian 12.15 (bookworm) main, i18n/Translation-en (sha256 of the uncompressed file $descriptions_sha256)"
