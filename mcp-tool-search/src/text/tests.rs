//! The tests of `text.rs`.
use super::*;

#[test]
fn names_split_on_separators_and_case_turns() {
    assert_eq!(
        words("browser_navigate-back.page/getHTTPResponse"),
        [
            "browser",
            "navigate",
            "back",
            "page",
            "gethttpresponse",
            "get",
            "http",
            "response"
        ]
    );
    assert_eq!(words("listIssues"), ["listissues", "list", "issues"]);
    assert_eq!(
        words("ID3tags v2 utf8"),
        ["id3tags", "id3", "tags", "v2", "utf8"]
    );
}

#[test]
fn prose_is_lower_cased_without_its_commonest_words() {
    assert_eq!(
        words("Search the repositories of a GitHub user, by name."),
        [
            "search",
            "repositories",
            "github",
            "git",
            "hub",
            "user",
            "name"
        ]
    );
    assert!(words("").is_empty());
    assert_eq!(words("Größe ändern"), ["größe", "ändern"]);
}

#[test]
fn every_stop_word_and_only_those_is_left_out() {
    assert!(
        STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]),
        "sorted"
    );
    for word in STOP_WORDS {
        assert!(is_stop_word(word), "{word}");
    }
    for word in [
        "",
        "file",
        "whatever",
        "themselvesx",
        "ourselve",
        "github",
        "me2",
        "w",
    ] {
        assert!(!is_stop_word(word), "{word}");
    }
}

/// The words of `text` the plain way: split on anything not a letter or digit, each run
/// cut at its case turns, each piece lower-cased by Unicode's rules.
fn plain_tokens(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        let mut cuts = Vec::new();
        case_turns(run, &mut cuts);
        let lower = |piece: &str| piece.chars().flat_map(char::to_lowercase).collect();
        if !cuts.is_empty() {
            words.push(lower(run));
        }
        let mut start = 0;
        for cut in cuts.iter().copied().chain([run.len()]) {
            words.push(lower(&run[start..cut]));
            start = cut;
        }
    }
    words
}

/// The words [`Reader::words`] gives, as text.
fn keyed_tokens(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    Reader::default().words(text, |word| {
        words.push(match word {
            Word::Short(key) => short_key_text(&key.to_le_bytes())
                .expect("a key packs text")
                .to_owned(),
            Word::Text(text) => text.to_owned(),
        });
    });
    words
}

#[test]
fn the_index_reads_the_words_of_any_text_as_a_plain_split_does() {
    let long = "x".repeat(63) + "_boundaryWord " + &"y".repeat(70) + " end";
    let mut texts = vec![
        "browser_navigate-back.page/getHTTPResponse".to_owned(),
        "ID3tags v2 utf8 ABC aB Ab ABc a1b2C3 x 0 9z Z9 @[`{ AZaz09".to_owned(),
        "Search the repositories of a GitHub user, by name. It's the_end!".to_owned(),
        "Größe ändern — the file’s SIZE".to_owned(),
        "fifteenletterss sixteenletterss seventeenletterss Fifteenletterss".to_owned(),
        "".to_owned(),
        "a".to_owned(),
        long,
    ];
    // Every byte from 1 to 127 between and inside words, at every offset of a block.
    let all: String = (1u8..128).map(char::from).collect();
    for shift in 0..9 {
        texts.push(format!("{}{all}word{all}", " ".repeat(shift)));
    }
    for text in &texts {
        assert_eq!(keyed_tokens(text), plain_tokens(text), "{text:?}");
    }
}

#[test]
fn random_text_is_read_as_a_plain_split_reads_it() {
    // Letters of both cases, digits, separators, and characters of two, three and four
    // bytes (a capital among them), in random runs across the reader's 8- and 64-byte
    // blocks: 20,000 texts from a fixed seed.
    let pool: Vec<char> = "aZq9_-./ \t'’—éÉßΣ中😀xYk0".chars().collect();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % bound as u64).unwrap_or(0)
    };
    for _ in 0..20_000 {
        let length = next(150);
        let text: String = (0..length).map(|_| pool[next(pool.len())]).collect();
        assert_eq!(keyed_tokens(&text), plain_tokens(&text), "{text:?}");
    }
}

#[test]
fn a_short_word_is_packed_as_short_key_packs_it() {
    let mut keys = Vec::new();
    Reader::default().words("Search a_b Fifteenletterss xyzzy", |word| {
        if let Word::Short(key) = word {
            keys.push(key);
        }
    });
    let expected: Vec<u128> = ["search", "a", "b", "fifteenletterss", "xyzzy"]
        .into_iter()
        .filter_map(short_key)
        .collect();
    assert_eq!(keys, expected);
    assert_eq!(short_key("sixteenletterss!"), None);
    assert_ne!(short_key("a"), short_key("a\0"));
}

#[test]
fn eight_bytes_are_classified_at_once_as_one_by_one() {
    for start in (0u8..128).step_by(8) {
        let bytes: Vec<u8> = (start..start + 8).collect();
        let chunk = Bytes::new(&bytes).load(0);
        let classes = Classes::of(chunk);
        for (at, byte) in bytes.iter().enumerate() {
            let bit = |marks: u64| gather(marks) >> at & 1 == 1;
            assert_eq!(bit(classes.letter), byte.is_ascii_alphabetic(), "{byte}");
            assert_eq!(bit(classes.upper), byte.is_ascii_uppercase(), "{byte}");
            assert_eq!(bit(classes.digit), byte.is_ascii_digit(), "{byte}");
        }
    }
}

#[test]
fn text_splits_byte_by_byte_as_it_does_character_by_character() {
    for text in [
        "browser_navigate-back.page/getHTTPResponse",
        "ID3tags v2 utf8 ABC aB Ab ABc a1b2C3 x",
        "Search the repositories of a GitHub user, by name. It's the_end!",
        "  __--..  ",
        "",
        "HTTPServer2Go listIssues XMLHttpRequest",
        "Größe ändern — the file’s SIZE; naïveCafé ÉtéX İstanbul ß 42€ x\u{2014}y",
        "日本語のテキスト and ASCII — mixed…",
    ] {
        let mut split = Vec::new();
        for_each_token(text, |word| split.push(word.to_owned()));
        assert_eq!(split, plain_tokens(text), "{text}");
    }
}

#[test]
fn inflections_share_a_stem_and_names_with_digits_keep_theirs() {
    for (word, expected) in [
        ("issues", "issu"),
        ("issue", "issu"),
        ("screenshots", "screenshot"),
        ("listing", "list"),
        ("lists", "list"),
        ("repositories", "repositori"),
        ("repository", "repositori"),
        ("created", "creat"),
        ("v2", "v2"),
        ("utf8", "utf8"),
    ] {
        assert_eq!(stem(word), expected, "{word}");
    }
}
