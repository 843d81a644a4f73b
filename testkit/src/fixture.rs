//! [`FixtureServer`]: the fixture's command line, composed flag by flag.

use std::path::PathBuf;
use std::process::Command;

use crate::binary::fixture_server_path;

/// The command line of one `mcp-fixture-server` run; each method adds one flag.
///
/// Nothing is started here: [`command`](Self::command) gives the program and arguments for the
/// transport under test, and [`std_command`](Self::std_command) a [`Command`] for tests that
/// drive the server themselves.
///
/// ```no_run
/// let (program, args) = testkit::FixtureServer::new()
///     .name("slow")
///     .delay("tools/list", 1500)
///     .crash_at("tools/call")
///     .exit_code(7)
///     .command();
/// assert!(args.contains(&"--crash-at".to_owned()));
/// # let _ = program;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct FixtureServer {
    args: Vec<String>,
}

impl FixtureServer {
    /// A well-behaved server: no flags.
    pub fn new() -> Self {
        Self::default()
    }

    fn flag(mut self, flag: &str) -> Self {
        self.args.push(flag.to_owned());
        self
    }

    fn flag_value(mut self, flag: &str, value: String) -> Self {
        self.args.push(flag.to_owned());
        self.args.push(value);
        self
    }

    /// `--name NAME`: `serverInfo.name` (default `fixture`).
    pub fn name(self, name: impl Into<String>) -> Self {
        self.flag_value("--name", name.into())
    }

    /// `--instructions TEXT`: `instructions` in the initialize result.
    pub fn instructions(self, text: impl Into<String>) -> Self {
        self.flag_value("--instructions", text.into())
    }

    /// `--protocol-version V`: always answer initialize with `version`, supported or not.
    pub fn protocol_version(self, version: impl Into<String>) -> Self {
        self.flag_value("--protocol-version", version.into())
    }

    /// `--crash-at PHASE`: exit without answering the request with method `phase`.
    pub fn crash_at(self, phase: impl Into<String>) -> Self {
        self.flag_value("--crash-at", phase.into())
    }

    /// `--crash-stderr TEXT`: what `--crash-at` writes to stderr before exiting.
    pub fn crash_stderr(self, text: impl Into<String>) -> Self {
        self.flag_value("--crash-stderr", text.into())
    }

    /// `--exit-code N`: the exit code of `--crash-at` (default 3).
    pub fn exit_code(self, code: i32) -> Self {
        self.flag_value("--exit-code", code.to_string())
    }

    /// `--hang-at PHASE`: never answer requests with method `phase`.
    pub fn hang_at(self, phase: impl Into<String>) -> Self {
        self.flag_value("--hang-at", phase.into())
    }

    /// `--ignore-stdin-close`: keep running after stdin reaches end of file.
    pub fn ignore_stdin_close(self) -> Self {
        self.flag("--ignore-stdin-close")
    }

    /// `--ignore-sigterm`: ignore SIGTERM, so that only SIGKILL stops the server.
    pub fn ignore_sigterm(self) -> Self {
        self.flag("--ignore-sigterm")
    }

    /// `--delay PHASE=MS`: wait `ms` milliseconds before answering method `phase`.
    pub fn delay(self, phase: &str, ms: u64) -> Self {
        self.flag_value("--delay", format!("{phase}={ms}"))
    }

    /// `--hold PHASE=FIFO`: answer method `phase` only once something opens the named pipe
    /// `fifo` for writing; a test makes the pipe and opens it when the answer may go, so a
    /// server is slow for exactly as long as the test needs.
    pub fn hold(self, phase: &str, fifo: &std::path::Path) -> Self {
        self.flag_value("--hold", format!("{phase}={}", fifo.display()))
    }

    /// `--garbage`: non-JSON lines on stdout at startup and before every message.
    pub fn garbage(self) -> Self {
        self.flag("--garbage")
    }

    /// `--huge-line-at PHASE=BYTES`: answer method `phase` with one non-JSON line of `bytes`
    /// bytes instead of a response.
    pub fn huge_line_at(self, phase: &str, bytes: usize) -> Self {
        self.flag_value("--huge-line-at", format!("{phase}={bytes}"))
    }

    /// `--stderr-flood BYTES`: write `bytes` bytes to stderr before reading any request.
    pub fn stderr_flood(self, bytes: usize) -> Self {
        self.flag_value("--stderr-flood", bytes.to_string())
    }

    /// `--page-size M`: paginate `tools/list`, `size` tools a page.
    pub fn page_size(self, size: usize) -> Self {
        self.flag_value("--page-size", size.to_string())
    }

    /// `--tools N`: add `count` generated tools `tool_0` .. `tool_{count-1}`.
    pub fn tools(self, count: usize) -> Self {
        self.flag_value("--tools", count.to_string())
    }

    /// `--tool NAME=DESCRIPTION`: add an echo-like tool with this name and description.
    pub fn tool(self, name: &str, description: &str) -> Self {
        self.flag_value("--tool", format!("{name}={description}"))
    }

    /// `--tools-file PATH`: add the tools listed in `path`, one `NAME=DESCRIPTION` a line (a
    /// relative path is taken from the server's working folder).
    pub fn tools_file(self, path: impl Into<String>) -> Self {
        self.flag_value("--tools-file", path.into())
    }

    /// `--tools-json PATH`: add the tool definitions of `path` (a JSON array, as `tools/list`
    /// lists them) as they are written; each answers `NAME on SERVER with ARGS` (SERVER is
    /// `--name`, ARGS the call's arguments as JSON).
    pub fn tools_json(self, path: &std::path::Path) -> Self {
        self.flag_value("--tools-json", path.display().to_string())
    }

    /// `--tools-json-live`: `change_tools` (and `--list-change-after`) read the `--tools-json`
    /// files again, instead of adding `late_tool`, before sending
    /// `notifications/tools/list_changed`.
    pub fn tools_json_live(self) -> Self {
        self.flag("--tools-json-live")
    }

    /// `--repeat-cursor`: every `tools/list` page answers the same `nextCursor`.
    pub fn repeat_cursor(self) -> Self {
        self.flag("--repeat-cursor")
    }

    /// `--list-change-after MS`: `ms` after `notifications/initialized`, add `late_tool` and
    /// send `notifications/tools/list_changed`.
    pub fn list_change_after(self, ms: u64) -> Self {
        self.flag_value("--list-change-after", ms.to_string())
    }

    /// `--grandchild`: spawn a grandchild process that holds none of the server's pipes.
    pub fn grandchild(self) -> Self {
        self.flag("--grandchild")
    }

    /// `--daemon FILE`: before serving, leave a daemon (fork, `setsid()`, fork again) that
    /// writes `PID START` to `file` and sleeps forever.
    pub fn daemon(self, file: &std::path::Path) -> Self {
        self.flag_value("--daemon", file.display().to_string())
    }

    /// `--server-requests`: after `notifications/initialized`, send the client `ping`,
    /// `roots/list` and `sampling/createMessage` requests.
    pub fn server_requests(self) -> Self {
        self.flag("--server-requests")
    }

    /// `--no-tools`: no `tools` capability (prompts only).
    pub fn no_tools(self) -> Self {
        self.flag("--no-tools")
    }

    /// `--false-answers-at PHASE`: before answering, messages with the request's id that are
    /// not responses.
    pub fn false_answers_at(self, phase: impl Into<String>) -> Self {
        self.arg("--false-answers-at").arg(phase)
    }

    /// `--resources`: offer three static resources and a resource template.
    pub fn resources(self) -> Self {
        self.flag("--resources")
    }

    /// `--skills DIR`: offer each folder of `dir` holding a `SKILL.md` as a skill, listed with
    /// every file's size and SHA-256 as they are when listed, read as they are when read. A
    /// skill's `stated/PATH` is listed in place of its `PATH` (which is still what is served),
    /// and its `frontmatter.json` in place of its `SKILL.md`'s frontmatter: a server whose
    /// listing disagrees with its files.
    pub fn skills(self, dir: &std::path::Path) -> Self {
        self.flag_value("--skills", dir.display().to_string())
    }

    /// `--log-reads FILE`: append the URI of every `resources/read` of a skill to `file`.
    pub fn log_reads(self, file: &std::path::Path) -> Self {
        self.flag_value("--log-reads", file.display().to_string())
    }

    /// `--prompts`: offer the prompts `greet` (with arguments) and `summarize_readme`.
    pub fn prompts(self) -> Self {
        self.flag("--prompts")
    }

    /// `--catalog-change-after MS`: `ms` after `notifications/initialized`, add a resource and
    /// a prompt and send `notifications/resources/list_changed` and
    /// `notifications/prompts/list_changed` (for the lists offered).
    pub fn catalog_change_after(self, ms: u64) -> Self {
        self.flag_value("--catalog-change-after", ms.to_string())
    }

    /// Any other argument, verbatim.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// The arguments so far.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The program ([`fixture_server_path`], built if needed) and its arguments.
    ///
    /// # Panics
    ///
    /// If the fixture executable can be neither found nor built.
    pub fn command(&self) -> (PathBuf, Vec<String>) {
        (fixture_server_path(), self.args.clone())
    }

    /// A [`Command`] for the program and arguments; stdio is left for the caller to set.
    ///
    /// # Panics
    ///
    /// If the fixture executable can be neither found nor built.
    pub fn std_command(&self) -> Command {
        let mut command = Command::new(fixture_server_path());
        command.args(&self.args);
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_come_out_in_the_order_given() {
        let server = FixtureServer::new()
            .name("n")
            .delay("tools/list", 1500)
            .huge_line_at("initialize", 10)
            .garbage()
            .exit_code(-1)
            .arg("--sleep-forever");
        assert_eq!(
            server.args(),
            [
                "--name",
                "n",
                "--delay",
                "tools/list=1500",
                "--huge-line-at",
                "initialize=10",
                "--garbage",
                "--exit-code",
                "-1",
                "--sleep-forever",
            ]
        );
    }
}
