//! Words out of a tool's text: [`words`] splits names and prose alike — on anything that is not
//! a letter or a digit (`_`, `-`, `.`, `/`, spaces, punctuation) and where camelCase turns
//! (`getHTTPResponse` → `get`, `http`, `response`), lower-cased, with the commonest English
//! words left out (they are in every description and say nothing about a tool). A run split at
//! its case turns is also kept whole (`GitHub` → `github`, `git`, `hub`), so a query may name
//! it either way.

/// The words of `text`, lower-cased, in order, without stop words.
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        split_case(run, &mut words);
    }
    words.retain(|word| !is_stop_word(word));
    words
}

/// Splits one run of letters and digits where its case turns: `lowerUpper`, `UPPERLower`
/// (`HTTPResponse` → `http`, `response`), and between letters and digits (`v2` stays whole:
/// a digit after a letter does not split, so version names keep their shape).
fn split_case(run: &str, words: &mut Vec<String>) {
    let chars: Vec<char> = run.chars().collect();
    let first = words.len();
    let mut start = 0;
    for index in 1..chars.len() {
        let (before, here) = (chars[index - 1], chars[index]);
        let next_is_lower = chars.get(index + 1).is_some_and(|c| c.is_lowercase());
        let turns = (before.is_lowercase() && here.is_uppercase())
            || (before.is_uppercase() && here.is_uppercase() && next_is_lower)
            || (before.is_numeric() && here.is_alphabetic());
        if turns {
            push_word(&chars[start..index], words);
            start = index;
        }
    }
    push_word(&chars[start..], words);
    if words.len() > first + 1 {
        words.insert(first, run.to_lowercase());
    }
}

fn push_word(chars: &[char], words: &mut Vec<String>) {
    if !chars.is_empty() {
        words.push(chars.iter().flat_map(|c| c.to_lowercase()).collect());
    }
}

/// Words too common in tool descriptions to tell tools apart.
fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "by"
            | "can"
            | "for"
            | "from"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "its"
            | "of"
            | "on"
            | "or"
            | "that"
            | "the"
            | "this"
            | "to"
            | "with"
    )
}

#[cfg(test)]
mod tests {
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
}
