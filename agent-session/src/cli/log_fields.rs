//! Log lines a server cannot forge or use to drive the terminal.
//!
//! A log event's message and fields (span fields included) often quote what a server or a
//! config file wrote: a stderr line, an error a server returned, a server name. The CLI's
//! subscriber formats them through [`EscapedFields`], which writes each message and value on
//! one line through [`terminal_text::escape_line`], so a value holding `\r`, `\n` or an escape
//! sequence cannot rewrite the line, add one, or set the title. The subscriber's own styling
//! (the level's colour, bold span names, italic field names) is written by us, not taken from
//! the values, so it keeps working on a colour terminal.

use std::error::Error;
use std::fmt::{self, Write as _};

use agent_session::terminal_text;
use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

/// Formats fields as the default subscriber does (`message name=value …`), every message and
/// value escaped as one line.
pub(crate) struct EscapedFields;

impl<'writer> FormatFields<'writer> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = Visitor {
            ansi: writer.has_ansi_escapes(),
            writer,
            result: Ok(()),
            first: true,
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct Visitor<'writer> {
    writer: Writer<'writer>,
    ansi: bool,
    result: fmt::Result,
    first: bool,
}

impl Visitor<'_> {
    /// Writes one field: the message bare, any other as `name=value`.
    fn write(&mut self, field: &Field, value: &str) {
        if self.result.is_err() {
            return;
        }
        let value = terminal_text::escape_line(value);
        let separator = if self.first { "" } else { " " };
        self.first = false;
        let name = field.name();
        let name = name.strip_prefix("r#").unwrap_or(name);
        self.result = if name == "message" {
            write!(self.writer, "{separator}{value}")
        } else if self.ansi {
            // Italic name, dimmed `=`: the default subscriber's look.
            write!(
                self.writer,
                "{separator}\x1b[3m{name}\x1b[0m\x1b[2m=\x1b[0m{value}"
            )
        } else {
            write!(self.writer, "{separator}{name}={value}")
        };
    }
}

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.write(field, value);
        } else {
            // Quoted, as the default subscriber shows a string field.
            self.write(field, &format!("{value:?}"));
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn Error + 'static)) {
        let mut text = value.to_string();
        let mut source = value.source();
        while let Some(cause) = source {
            let _ = write!(text, ": {cause}");
            source = cause.source();
        }
        self.write(field, &text);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.write(field, &format!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex, PoisonError};

    use super::*;

    /// What the subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn logged(ansi: bool) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(ansi)
            .without_time()
            .with_target(false)
            .fmt_fields(EscapedFields)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::warn_span!("server", name = %"evil\u{1b}[1A\u{1b}[2K\r");
            let _entered = span.enter();
            let stderr = "\u{1b}]0;owned\u{7}line\nnext";
            tracing::warn!(%stderr, quoted = stderr, "said \u{1b}[8m{}", "hidden\u{202e}");
        });
        let bytes = captured
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn a_log_line_shows_what_servers_wrote_escaped_and_stays_one_line() {
        let line = logged(false);
        assert_eq!(
            line,
            " WARN server{name=evil\\u{1b}[1A\\u{1b}[2K\\u{d}}: said \\u{1b}[8mhidden\\u{202e} \
             stderr=\\u{1b}]0;owned\\u{7}line\\u{a}next \
             quoted=\"\\u{1b}]0;owned\\u{7}line\\nnext\"\n"
        );
    }

    #[test]
    fn colour_is_the_subscribers_own_and_values_are_still_escaped() {
        let line = logged(true);
        assert!(line.contains("\u{1b}[3mstderr\u{1b}[0m"), "{line:?}");
        assert!(line.contains("\\u{1b}]0;owned"), "{line:?}");
        assert!(!line.contains("\u{1b}]"), "{line:?}");
        assert!(!line.contains("\u{1b}[8m"), "{line:?}");
        assert_eq!(line.matches('\n').count(), 1, "{line:?}");
    }
}
