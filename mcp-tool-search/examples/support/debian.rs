//! Debian's package descriptions as the examples that make the ranking's tables read them
//! (`word_tables.rs`, `vector_vocabulary.rs`).

/// Each `Description-en:` (or `Description:`) field of a Debian `Translation-en` (or
/// `Packages`) file, in file order, with its continuation lines joined by a space and the lone
/// `.` paragraph marks left out.
pub(crate) fn each_description(file: &str, mut visit: impl FnMut(String)) {
    let mut current: Option<String> = None;
    for line in file.lines() {
        if let Some(text) = current.as_mut()
            && let Some(continued) = line.strip_prefix(' ')
        {
            if continued.trim() != "." {
                text.push(' ');
                text.push_str(continued);
            }
            continue;
        }
        if let Some(text) = current.take() {
            visit(text);
        }
        let field = line
            .strip_prefix("Description-en:")
            .or_else(|| line.strip_prefix("Description:"));
        if let Some(short) = field {
            current = Some(short.trim().to_owned());
        }
    }
    if let Some(text) = current {
        visit(text);
    }
}
