//! Where cargo puts the workspace's build outputs, as `cargo metadata` says: its
//! `target_directory`, which is `target/` under the root unless `CARGO_TARGET_DIR`,
//! `build.target-dir` in a `.cargo/config.toml` or a `--config` option moves it. xtask never
//! guesses the place: a binary looked for under `target/` while cargo built it elsewhere fails
//! every step that runs it.
//!
//! The crate has no JSON library (it builds from the standard library alone), so the one field
//! is read by a small reader of the top-level object ([`top_level_string`]), which steps over
//! the other values whole: a package's `[package.metadata]` table or a description may hold the
//! same words, and only the top-level key counts.

use std::iter::Peekable;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::Chars;

use crate::command;
use crate::error::Error;

/// The workspace's target directory (absolute), from `cargo metadata` run at `root`.
pub(crate) fn target_directory(root: &Path) -> Result<PathBuf, Error> {
    let metadata = command::output(Command::new(crate::cargo()).current_dir(root).args([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
    ]))?;
    top_level_string(&metadata, "target_directory")
        .map(PathBuf::from)
        .ok_or_else(|| {
            Error::Check(
                "`cargo metadata --format-version 1 --no-deps` printed no `target_directory`: \
                 has its output changed?"
                    .to_owned(),
            )
        })
}

/// The string value of `key` in the top-level object of the JSON text `json`; `None` when the
/// text is not an object, the key is not there, or its value is not a string.
fn top_level_string(json: &str, key: &str) -> Option<String> {
    let mut reader = Reader {
        chars: json.chars().peekable(),
    };
    reader.expect('{')?;
    if reader.next_is('}') {
        return None;
    }
    loop {
        let name = reader.string()?;
        reader.expect(':')?;
        if name == key {
            return reader.string();
        }
        reader.skip_value()?;
        if !reader.next_is(',') {
            return None;
        }
    }
}

/// A cursor over JSON text that skips the whitespace before each token.
struct Reader<'a> {
    chars: Peekable<Chars<'a>>,
}

impl Reader<'_> {
    fn skip_whitespace(&mut self) {
        while self.chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
    }

    /// Whether the next token is `token`, taking it when it is.
    fn next_is(&mut self, token: char) -> bool {
        self.skip_whitespace();
        self.chars.next_if_eq(&token).is_some()
    }

    fn expect(&mut self, token: char) -> Option<()> {
        self.next_is(token).then_some(())
    }

    /// A string, its escapes decoded.
    fn string(&mut self) -> Option<String> {
        self.expect('"')?;
        let mut text = String::new();
        loop {
            match self.chars.next()? {
                '"' => return Some(text),
                '\\' => text.push(self.escaped()?),
                c => text.push(c),
            }
        }
    }

    /// The character an escape stands for, its backslash taken.
    fn escaped(&mut self) -> Option<char> {
        Some(match self.chars.next()? {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let unit = self.hex4()?;
                if (0xD800..0xDC00).contains(&unit) {
                    // A surrogate pair: the low half is a second `\u` escape.
                    self.expect_raw('\\')?;
                    self.expect_raw('u')?;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?
                } else {
                    char::from_u32(unit)?
                }
            }
            _ => return None,
        })
    }

    /// The next character, which must be `c` (inside a string: no whitespace skipped).
    fn expect_raw(&mut self, c: char) -> Option<()> {
        self.chars.next_if_eq(&c).map(drop)
    }

    fn hex4(&mut self) -> Option<u32> {
        (0..4).try_fold(0, |value, _| {
            Some(value * 16 + self.chars.next()?.to_digit(16)?)
        })
    }

    /// Steps over one value of any kind.
    fn skip_value(&mut self) -> Option<()> {
        self.skip_whitespace();
        match *self.chars.peek()? {
            '"' => self.string().map(drop),
            open @ ('{' | '[') => {
                self.chars.next();
                let close = if open == '{' { '}' } else { ']' };
                if self.next_is(close) {
                    return Some(());
                }
                loop {
                    if open == '{' {
                        self.string()?;
                        self.expect(':')?;
                    }
                    self.skip_value()?;
                    if self.next_is(close) {
                        return Some(());
                    }
                    self.expect(',')?;
                }
            }
            // A number, `true`, `false` or `null`.
            _ => {
                let mut taken = 0;
                while self
                    .chars
                    .next_if(|c| c.is_ascii_alphanumeric() || "+-.".contains(*c))
                    .is_some()
                {
                    taken += 1;
                }
                (taken > 0).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_directory_is_the_top_level_field_not_one_inside_a_package() {
        let metadata = r#"{"packages":[{"name":"x","version":"0.1.0","description":"says \"target_directory\": \"/nope\"","metadata":{"target_directory":"/wrong","n":[1,-2.5e3,true,null,{}]},"targets":[]}],"workspace_members":["path+file:///w/x#0.1.0"],"resolve":null,"target_directory" : "/tmp/elsewhere","version":1,"workspace_root":"/w","metadata":null}"#;
        assert_eq!(
            top_level_string(metadata, "target_directory").as_deref(),
            Some("/tmp/elsewhere")
        );
        assert_eq!(
            top_level_string(metadata, "workspace_root").as_deref(),
            Some("/w")
        );
    }

    #[test]
    fn escapes_in_the_path_are_decoded() {
        let metadata = r#"{"target_directory":"C:\\build\\\"out\" \u00e9\ud83d\ude00\/t"}"#;
        assert_eq!(
            top_level_string(metadata, "target_directory").as_deref(),
            Some("C:\\build\\\"out\" é😀/t")
        );
    }

    #[test]
    fn no_path_comes_from_a_missing_key_another_kind_of_value_or_broken_text() {
        for text in [
            "",
            "{}",
            "[]",
            r#"{"version":1}"#,
            r#"{"target_directory":null}"#,
            r#"{"packages":[{"target_directory":"/inside"}]}"#,
            r#"{"packages":[}],"target_directory":"/t"}"#,
            r#"{"target_directory":"/unterminated"#,
            r#"{"target_directory":"\ud83d"}"#,
        ] {
            assert_eq!(top_level_string(text, "target_directory"), None, "{text}");
        }
    }

    #[test]
    fn cargo_names_an_absolute_target_directory_for_this_workspace() {
        let root = crate::workspace_root().unwrap();
        let target = target_directory(&root).unwrap();
        assert!(target.is_absolute(), "{}", target.display());
        if let Some(set) = std::env::var_os("CARGO_TARGET_DIR") {
            assert_eq!(target, root.join(set));
        }
    }
}
