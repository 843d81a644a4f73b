//! Colour, only where it belongs: on a terminal, never when `NO_COLOR` is set (see
//! <https://no-color.org>), and on a pipe only when `CLICOLOR_FORCE` asks for it.

use std::io::IsTerminal;

/// Whether output to a stream (a terminal or not) gets colour.
pub(crate) fn colour(is_terminal: bool) -> bool {
    colour_with(
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("CLICOLOR_FORCE").as_deref(),
        is_terminal,
    )
}

/// Whether stderr gets colour.
pub(crate) fn stderr_colour() -> bool {
    colour(std::io::stderr().is_terminal())
}

fn colour_with(
    no_color: Option<&std::ffi::OsStr>,
    force: Option<&std::ffi::OsStr>,
    is_terminal: bool,
) -> bool {
    if no_color.is_some_and(|value| !value.is_empty()) {
        return false;
    }
    if force.is_some_and(|value| !value.is_empty() && value != "0") {
        return true;
    }
    is_terminal
}

/// `text` in bold red when `enabled`.
pub(crate) fn error_label(text: &str, enabled: bool) -> String {
    if enabled {
        format!("\x1b[1;31m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn no_color_wins_then_force_then_the_terminal() {
        let set = Some(OsStr::new("1"));
        assert!(!colour_with(set, set, true));
        assert!(colour_with(Some(OsStr::new("")), None, true));
        assert!(colour_with(None, set, false));
        assert!(!colour_with(None, Some(OsStr::new("0")), false));
        assert!(!colour_with(None, None, false));
        assert!(colour_with(None, None, true));
    }
}
