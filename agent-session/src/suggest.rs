//! Did-you-mean: the names nearest to one typed wrongly, for every message about a server or a
//! tool that does not exist. Nearness is the edit distance (`strsim`'s Levenshtein), at most a
//! third of the typed name's length and at least 2, so `evrything` finds `everything` while
//! `weather` finds nothing among `github` and `fs`.

/// Up to three of `names` close to `wanted`, nearest first (equally near ones in name order).
pub fn nearest<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (wanted.chars().count() / 3).max(2);
    let mut close: Vec<(usize, &str)> = names
        .into_iter()
        .map(|name| (strsim::levenshtein(wanted, name), name))
        .filter(|(distance, _)| *distance <= limit)
        .collect();
    close.sort();
    close.dedup();
    close.into_iter().take(3).map(|(_, name)| name).collect()
}

/// ` (did you mean "a", "b"?)` with the given names, or nothing for none.
pub fn did_you_mean(nearest: &[&str]) -> String {
    if nearest.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = nearest.iter().map(|name| format!("\"{name}\"")).collect();
    format!(" (did you mean {}?)", quoted.join(", "))
}

/// ` (did you mean …?)` for `wanted` among `names`: [`did_you_mean`] of [`nearest`].
pub fn suggest<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(&nearest(wanted, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_names_are_suggested_nearest_first_and_far_ones_never() {
        let names = [
            "mcp_github_create_issue",
            "mcp_github_close_issue",
            "mcp_fs_read_file",
        ];
        assert_eq!(
            nearest("mcp_github_create_isue", names),
            ["mcp_github_create_issue", "mcp_github_close_issue"]
        );
        assert_eq!(
            nearest("mcp_github_clse_issue", names),
            ["mcp_github_close_issue", "mcp_github_create_issue"]
        );
        assert!(nearest("weather", names).is_empty());
    }

    #[test]
    fn a_suggestion_quotes_each_name_and_nothing_is_said_for_none() {
        assert_eq!(
            suggest("evrything", ["everything", "memory"]),
            " (did you mean \"everything\"?)"
        );
        assert_eq!(suggest("weather", ["github", "fs"]), "");
    }
}
