//! The command line of the examples that make the ranking's tables: `--flag value` pairs.

/// Each `--flag value` pair of the command line, in order; a flag without its value stops the
/// run with the reason.
pub(crate) fn flags() -> Vec<(String, String)> {
    let mut args = std::env::args().skip(1);
    let mut pairs = Vec::new();
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| panic!("{flag} needs a value"));
        pairs.push((flag, value));
    }
    pairs
}
