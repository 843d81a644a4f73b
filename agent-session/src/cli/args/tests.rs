//! The tests of `args.rs`.
use super::*;

#[test]
fn sizes_take_binary_units() {
    assert_eq!(parse_size("33554432"), Ok(32 << 20));
    assert_eq!(parse_size("32MiB"), Ok(32 << 20));
    assert_eq!(parse_size("64k"), Ok(64 << 10));
    assert_eq!(parse_size("1G"), Ok(1 << 30));
    for bad in ["", "0", "12 MiB", "MiB", "5TB", "-1"] {
        assert!(parse_size(bad).is_err(), "{bad}");
    }
}

fn parse_line(line: &str) -> Parsed {
    parse(
        std::iter::once("agent-session")
            .chain(line.split_whitespace())
            .map(Into::into),
    )
}

fn cli(line: &str) -> Cli {
    match parse_line(line) {
        Parsed::Run(cli) => *cli,
        other => panic!("{line}: {other:?}"),
    }
}

fn usage(line: &str) -> String {
    match parse_line(line) {
        Parsed::Usage(message) => message,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn global_options_go_anywhere() {
    let cli = cli("--json tools --server fast --no-cache --cwd /p");
    assert!(cli.globals.json);
    assert_eq!(cli.globals.cache(), CacheChoice::Off);
    assert_eq!(cli.globals.cwd, Some(PathBuf::from("/p")));
    assert_eq!(
        cli.command,
        Command::Tools {
            server: Some("fast".to_owned())
        }
    );
    assert!(cli.globals.project_config());
    assert_eq!(cli.globals.app, DEFAULT_APP);
}

#[test]
fn search_takes_words_a_limit_and_a_server_and_tool_search_its_options() {
    let search = cli("search open an issue --limit 3 --server github --tool-search on");
    assert_eq!(
        search.command,
        Command::Search {
            query: vec!["open".to_owned(), "an".to_owned(), "issue".to_owned()],
            limit: Some(3),
            server: Some("github".to_owned()),
        }
    );
    assert_eq!(search.globals.tool_search, ToolSearchArg::On);
    let cli = cli("context --context-window 128k --tool-search-share 5");
    assert_eq!(cli.command, Command::Context);
    assert_eq!(cli.globals.tool_search, ToolSearchArg::Auto);
    assert_eq!(cli.globals.context_window, Some(128_000));
    assert_eq!(cli.globals.tool_search_share, Some(5));
    assert_eq!(parse_tokens("1m"), Ok(1_000_000));
    assert_eq!(parse_tokens("200000"), Ok(200_000));
    for bad in [
        "search",
        "search x --limit 0",
        "context --tool-search maybe",
    ] {
        assert!(usage(bad).contains("agent-session help"), "{bad}");
    }
    assert!(usage("context --tool-search-share 0").contains("0"));
    for share in ["18.9", "10%", "101"] {
        let said = usage(&format!("context --tool-search-share {share}"));
        assert!(
            said.contains("takes a whole percentage from 1 to 100"),
            "{share}: {said}"
        );
    }
    assert!(usage("context --context-window lots").contains("tokens"));
}

#[test]
fn call_takes_a_json_object_and_a_timeout() {
    let cli = parse(
        [
            "agent-session",
            "call",
            "mcp_a_echo",
            r#"{"message": "hi"}"#,
            "--timeout-ms=50",
        ]
        .map(std::ffi::OsString::from),
    );
    let Parsed::Run(cli) = cli else {
        panic!("{cli:?}");
    };
    assert_eq!(
        cli.command,
        Command::Call {
            tool: Some("mcp_a_echo".to_owned()),
            args: Some(r#"{"message": "hi"}"#.to_owned()),
            arg: Vec::new(),
            timeout_ms: Some(50),
            full: false,
        }
    );
    assert!(usage("call x {bad").contains("not valid JSON"));
    assert!(usage("call x [1]").contains("JSON object"));
    assert!(usage("call x --timeout-ms soon").contains("milliseconds"));
}

#[test]
fn mistakes_are_one_line_usage_errors_with_a_tip() {
    for line in [
        "",
        "lst",
        "list --bogus",
        "list --server x",
        "list --cache-dir /c --no-cache",
        "list extra",
        "tools --server",
        "--app ../x list",
    ] {
        let message = usage(line);
        assert!(!message.contains('\n'), "{line}: {message}");
        assert!(message.contains("agent-session help"), "{line}: {message}");
    }
    assert!(
        usage("lst").starts_with("unknown command \"lst\" (did you mean \"list\""),
        "{}",
        usage("lst")
    );
    assert!(
        usage("list --jsn").contains("'--json'"),
        "{}",
        usage("list --jsn")
    );
}

#[test]
fn help_and_version_are_printed() {
    for line in ["help", "--help", "list -h", "help call", "--version"] {
        let Parsed::Print(text) = parse_line(line) else {
            panic!("{line}");
        };
        assert!(text.contains("agent-session"), "{line}: {text}");
    }
    let Parsed::Print(call) = parse_line("help call") else {
        panic!("help call");
    };
    assert!(call.contains("--timeout-ms"), "{call}");
}

/// What `/mcp help` and the shell's `help` say of `reload` is what it does
/// (`AgentSession::reload`): only what changed is restarted, the rest keeps its connection,
/// and with MCP off nothing is read and every server stops.
#[test]
fn the_reload_help_says_what_a_reload_does() {
    // `/mcp help`: the reload entry, up to the next command.
    let help = agent_session::commands::HELP;
    let start = help.find("/mcp reload").expect("a reload entry");
    let rest = &help[start + 1..];
    let entry = &help[start..=start + rest.find("\n/mcp ").unwrap_or(rest.len())];
    let entry = entry.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "re-read the config files",
        "restart the servers whose definition changed",
        "start new ones",
        "retry failed ones",
        "stop removed or disabled ones",
        "the others keep their connection",
        "With MCP off it reads no file and stops every server",
    ] {
        assert!(entry.contains(said), "{said:?} in {entry:?}");
    }
    // The shell's `help`: the reload line of its command list.
    let words = ["help".to_owned()];
    let Err(NotRun::Help(shell)) = parse_shell_line(&words) else {
        panic!("the shell's help");
    };
    let line = shell
        .lines()
        .find(|line| line.trim_start().starts_with("reload "))
        .expect("a reload line");
    assert!(line.contains("restart only what changed"), "{line}");
    assert!(!line.contains("reconnect every server"), "{line}");
}

#[test]
fn mcp_before_a_command_is_the_command_and_alone_is_the_bare_usage() {
    let cli = cli("mcp list --json");
    assert!(cli.globals.json);
    assert_eq!(usage("mcp"), usage(""));
    // Options alone are no command either, said the same way.
    assert_eq!(usage("--json"), usage(""));
    assert_eq!(usage("--json mcp"), usage(""));
    assert!(
        !usage("mcp").contains("unknown command"),
        "{}",
        usage("mcp")
    );
}

#[test]
fn the_shells_help_of_a_command_shows_its_examples_as_typed_in_the_shell() {
    let words: Vec<String> = ["help", "add"]
        .iter()
        .map(|word| (*word).to_owned())
        .collect();
    let Err(NotRun::Help(help)) = parse_shell_line(&words) else {
        panic!("help add gave no help");
    };
    assert!(help.contains("  /mcp add github"), "{help}");
    assert!(
        help.contains("in the\nshell, the session connects it at once"),
        "{help}"
    );
    assert!(!help.contains("agent-session add"), "{help}");
}
