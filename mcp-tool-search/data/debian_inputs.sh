# The two Debian inputs of the ranking's tables, fetched by package name and checked against
# the SHA-256 they had when the tables were made. Sourced by regenerate.sh and
# vectors/regenerate.sh, with $work set to a scratch folder; leaves $work/wordnet (WordNet's
# files under usr/share/wordnet) and $work/Translation-en, and defines `check` for the
# scripts' other inputs.

wordnet_version=1:3.0-37
wordnet_sha256=61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752
descriptions_sha256=62f59c3cdca9786e4f7adf9002f9f5729a684adcb4667e58e448dec9b5a46c7f

check() { # FILE SHA256 WHAT
    actual=$(sha256sum "$1" | cut -d' ' -f1)
    if [ "$actual" != "$2" ]; then
        echo "$3 is not the one the tables were made from (sha256 $actual, expected $2)." >&2
        echo "It has changed: pin the new one in $0 and data/README.md on purpose." >&2
        exit 1
    fi
}

# WordNet 3.0, as Debian packages it (its sense tag counts, glosses and examples).
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
