//! Tool names as the model sees them: the documented rules of `mcp_bridge::naming`, pinned by
//! a table of exact names, collisions across servers, order independence and the model-API
//! pattern for generated inputs.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::{BTreeMap, HashSet};

use mcp_bridge::naming::{MAX_TOOL_NAME_LEN, assign_names, tool_name};

/// `^[a-zA-Z0-9_-]{1,64}$`, the pattern model APIs accept, without a regex dependency.
fn fits_model_api(name: &str) -> bool {
    (1..=MAX_TOOL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The suffix-free part and the 8 hex digits of a hashed name.
fn split_hash(name: &str) -> (&str, &str) {
    let (head, hash) = name.rsplit_once('_').expect("a hashed name has an `_`");
    assert_eq!(hash.len(), 8, "{name}: 8 hex digits");
    assert!(
        hash.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{name}: lower-case hex"
    );
    (head, hash)
}

#[test]
fn table_of_single_names() {
    let a58 = "a".repeat(58);
    let a59 = "a".repeat(59);
    let cut_on_underscore = format!("{}_{}", "a".repeat(48), "b".repeat(20));
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, String)> = vec![
        // simple
        ("github", "create_issue", "mcp_github_create_issue".into()),
        // capitals
        ("GitHub", "CreateIssue", "mcp_github_createissue".into()),
        ("SLACK", "Post_Message", "mcp_slack_post_message".into()),
        // dashes, dots, spaces: each run becomes one `_`
        ("my-server", "list-files", "mcp_my_server_list_files".into()),
        ("my.db.v2", "query.run", "mcp_my_db_v2_query_run".into()),
        ("My Server", "do  the   thing", "mcp_my_server_do_the_thing".into()),
        ("a.-.b", "c - d", "mcp_a_b_c_d".into()),
        // runs of `_` collapse
        ("a__b", "c___d", "mcp_a_b_c_d".into()),
        // digits are kept
        ("server2", "tool_3d", "mcp_server2_tool_3d".into()),
        ("123", "456", "mcp_123_456".into()),
        ("v1.2.3", "2fa-code", "mcp_v1_2_3_2fa_code".into()),
        // unicode: lower-cased first, then every character outside [a-z0-9_] is a `_`
        ("café", "menü", "mcp_caf_men".into()),
        ("Straße", "grüßen", "mcp_stra_e_gr_en".into()),
        ("工具", "工具", "mcp_server_tool".into()),
        ("db工具2", "查询x", "mcp_db_2_x".into()),
        ("🚀 launch", "go 🚀 now", "mcp_launch_go_now".into()),
        ("ÄBC", "ÉTÉ", "mcp_bc_t".into()),
        // U+212A KELVIN SIGN lower-cases to an ASCII `k`; U+0130 to `i` and a combining dot
        ("\u{212A}elvin", "\u{0130}stanbul", "mcp_kelvin_i_stanbul".into()),
        // leading and trailing junk
        ("  --GitHub--  ", "__Create Issue!!", "mcp_github_create_issue".into()),
        ("...srv...", "\t\ntool\r\n", "mcp_srv_tool".into()),
        // empty parts
        ("", "", "mcp_server_tool".into()),
        ("---", "---", "mcp_server_tool".into()),
        ("", "x", "mcp_server_x".into()),
        ("x", "!!!", "mcp_x_tool".into()),
        // a tool named like its server is not prefixed twice
        ("github", "github_search", "mcp_github_search".into()),
        ("GitHub", "GitHub-Search", "mcp_github_search".into()),
        ("my-db", "my_db_query", "mcp_my_db_query".into()),
        ("github", "github_github_x", "mcp_github_github_x".into()),
        // ... but only a whole `<server>_` prefix is stripped, and never the whole name
        ("github", "github", "mcp_github_github".into()),
        ("github", "github_", "mcp_github_github".into()),
        ("github", "githubsearch", "mcp_github_githubsearch".into()),
        ("git", "github_search", "mcp_git_github_search".into()),
        // exactly 64 characters: kept
        ("s", a58.as_str(), format!("mcp_s_{a58}")),
        // 65: cut to 55, then `_` and 8 hex digits of the original names, 64 in all
        ("s", a59.as_str(), format!("mcp_s_{}_542ef8b4", "a".repeat(49))),
        // a cut that ends on `_` does not leave `__` behind (63 characters)
        ("s", cut_on_underscore.as_str(), format!("mcp_s_{}_bf59dd99", "a".repeat(48))),
    ];
    let mut failures = Vec::new();
    for (server, tool, expected) in &cases {
        let name = tool_name(server, tool);
        if &name != expected {
            failures.push(format!("({server:?}, {tool:?}): {name:?} != {expected:?}"));
        }
        assert!(fits_model_api(&name), "{name:?}");
        // One tool alone keeps its name.
        assert_eq!(assign_names(&[(server, tool)]), [expected.as_str()]);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_length_limit_is_exact() {
    let kept = tool_name("s", &"a".repeat(58));
    assert_eq!(kept.len(), 64);
    let cut = tool_name("s", &"a".repeat(59));
    assert_eq!(cut.len(), 64);
    let (head, _) = split_hash(&cut);
    assert_eq!(head, format!("mcp_s_{}", "a".repeat(49)));
    // Stable, and told apart from a longer name with the same first 55 characters.
    assert_eq!(cut, tool_name("s", &"a".repeat(59)));
    assert_ne!(cut, tool_name("s", &"a".repeat(60)));
    assert_eq!(tool_name("s", &"a".repeat(1000)).len(), 64);
    // A long server name is cut the same way.
    let long_server = tool_name(&"S".repeat(200), "t");
    assert_eq!(long_server.len(), 64);
    assert!(long_server.starts_with(&format!("mcp_{}", "s".repeat(51))));
    // Names that differ only past the cut get different hashes.
    let one = tool_name("srv", &format!("{}_one", "x".repeat(70)));
    let two = tool_name("srv", &format!("{}_two", "x".repeat(70)));
    assert_ne!(one, two);
    assert_eq!(split_hash(&one).0, split_hash(&two).0);
}

#[test]
fn collisions_across_servers() {
    // `a-b`/`c` and `a`/`b_c` are both `mcp_a_b_c`; ("a", "b_c") sorts first and keeps it.
    assert_eq!(
        assign_names(&[("a-b", "c"), ("a", "b_c")]),
        ["mcp_a_b_c_8ad71361", "mcp_a_b_c"]
    );
    // `A`/`x` and `a`/`x`: "A" sorts before "a".
    assert_eq!(
        assign_names(&[("a", "x"), ("A", "x")]),
        ["mcp_a_x_e1f4230d", "mcp_a_x"]
    );
    // Three at once: each of the two that give way has its own hash.
    assert_eq!(
        assign_names(&[("a_b", "c"), ("a-b", "c"), ("a", "b_c")]),
        ["mcp_a_b_c_06d07d10", "mcp_a_b_c_8ad71361", "mcp_a_b_c"]
    );
    // Within one server: `github_search` (not prefixed twice) meets `search`.
    assert_eq!(
        assign_names(&[("github", "search"), ("github", "github_search")]),
        ["mcp_github_search_dd1e0517", "mcp_github_search"]
    );
    // Long names are already told apart by their own hashes: no second hash.
    let long = "t".repeat(70);
    let names = assign_names(&[("Srv", &long), ("srv", &long)]);
    let head = format!("mcp_srv_{}", "t".repeat(47));
    assert_eq!(
        names,
        [format!("{head}_c2b8824b"), format!("{head}_2dd45622")]
    );
    // Tools that do not collide are left alone.
    assert_eq!(
        assign_names(&[("a", "x"), ("b", "x"), ("a", "y")]),
        ["mcp_a_x", "mcp_b_x", "mcp_a_y"]
    );
}

#[test]
fn a_hashed_name_that_meets_another_tool_is_told_apart_again() {
    // `a`/`x` gives way to `A`/`x` and becomes `mcp_a_x_e1f4230d` — which is also the plain
    // name of the tool `x_e1f4230d` of server `a`. That tool keeps its plain name.
    let tools = [("a", "x"), ("A", "x"), ("a", "x_e1f4230d")];
    let names = assign_names(&tools);
    assert_eq!(names[1], "mcp_a_x");
    assert_eq!(names[2], "mcp_a_x_e1f4230d");
    let (head, hash) = split_hash(&names[0]);
    assert_eq!(head, "mcp_a_x");
    assert_ne!(hash, "e1f4230d");
    assert_eq!(unique(&names), 3, "{names:?}");
    assert_order_independent(&tools);
}

#[test]
fn a_tool_listed_many_times_gets_a_name_of_its_own_for_each_copy() {
    // A server may list a tool more than once; model APIs refuse repeated names. Forty copies
    // are more than the collision rounds, so the copies must be told apart in one round.
    let tools = vec![("srv", "echo"); 40];
    let names = assign_names(&tools);
    assert_eq!(
        names[0], "mcp_srv_echo",
        "the first copy keeps the plain name"
    );
    assert_eq!(unique(&names), tools.len(), "{names:?}");
    for name in &names[1..] {
        assert!(fits_model_api(name), "{name:?}");
        assert_eq!(split_hash(name).0, "mcp_srv_echo");
    }
    // Beside other tools, in any order: the copies share the same names among themselves.
    let mut mixed = tools.clone();
    mixed.extend([("srv", "other"), ("a", "x"), ("A", "x")]);
    let mut reference = assign_names(&mixed);
    assert_eq!(unique(&reference), mixed.len());
    reference.sort();
    mixed.rotate_left(17);
    let mut rotated = assign_names(&mixed);
    rotated.sort();
    assert_eq!(rotated, reference);
}

#[test]
fn collision_handling_does_not_depend_on_input_order() {
    let tools = [
        ("a-b", "c"),
        ("a", "b_c"),
        ("a_b", "c"),
        ("A", "x"),
        ("a", "x"),
        ("github", "search"),
        ("github", "github_search"),
        ("GitHub", "search"),
        (
            "Srv",
            "t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t",
        ),
        (
            "srv",
            "t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t_t",
        ),
        ("solo", "tool"),
    ];
    assert_order_independent(&tools);
    assert_eq!(unique(&assign_names(&tools)), tools.len());
}

#[test]
fn generated_names_fit_the_model_api_and_are_unique() {
    let mut rng = Lcg(0x5eed);
    for batch in 0..20 {
        let owned: Vec<(String, String)> = (0..20)
            .map(|_| (random_part(&mut rng), random_part(&mut rng)))
            .collect();
        // Distinct (server, tool) pairs, as a registry holds them.
        let mut seen = HashSet::new();
        let tools: Vec<(&str, &str)> = owned
            .iter()
            .map(|(server, tool)| (server.as_str(), tool.as_str()))
            .filter(|pair| seen.insert(*pair))
            .collect();
        let names = assign_names(&tools);
        for ((server, tool), name) in tools.iter().zip(&names) {
            assert!(fits_model_api(name), "({server:?}, {tool:?}) -> {name:?}");
            assert!(name.starts_with("mcp_"), "{name:?}");
            let alone = tool_name(server, tool);
            assert!(
                fits_model_api(&alone),
                "({server:?}, {tool:?}) -> {alone:?}"
            );
        }
        assert_eq!(
            unique(&names),
            tools.len(),
            "batch {batch}: {tools:?} -> {names:?}"
        );
        if batch % 5 == 0 {
            assert_order_independent(&tools);
        }
    }
}

/// How many different names there are.
fn unique(names: &[String]) -> usize {
    names.iter().collect::<HashSet<_>>().len()
}

/// Every rotation and the reversal of `tools` give every (server, tool) the same name.
fn assert_order_independent(tools: &[(&str, &str)]) {
    let reference: BTreeMap<(&str, &str), String> =
        tools.iter().copied().zip(assign_names(tools)).collect();
    let mut orders: Vec<Vec<(&str, &str)>> = (0..tools.len())
        .map(|shift| {
            let mut order = tools.to_vec();
            order.rotate_left(shift);
            order
        })
        .collect();
    orders.push(tools.iter().rev().copied().collect());
    let mut interleaved = tools.to_vec();
    interleaved.sort_by_key(|(server, tool)| (tool.len(), server.len()));
    orders.push(interleaved);
    for order in orders {
        let names = assign_names(&order);
        for (pair, name) in order.iter().zip(&names) {
            assert_eq!(&reference[pair], name, "{pair:?} in order {order:?}");
        }
    }
}

/// A tiny deterministic generator (a 64-bit LCG, Knuth's constants).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, bound: usize) -> usize {
        usize::try_from(self.next()).unwrap() % bound
    }
}

/// A part made of characters names are made of and characters they must not contain:
/// capitals, separators, digits, unicode, emoji, control characters; lengths 0 to ~90.
fn random_part(rng: &mut Lcg) -> String {
    const ALPHABET: &[char] = &[
        'a', 'b', 'z', 'A', 'Z', '0', '7', '9', '_', '_', '-', '.', ' ', '/', ':', '\t', '\n', 'é',
        'Ü', 'ß', '工', '具', '🚀', '\u{212A}', '\u{0130}', '\u{0}', '$', '%', '\u{200B}',
    ];
    let len = match rng.below(4) {
        0 => rng.below(4),
        1 | 2 => rng.below(20),
        _ => 40 + rng.below(50),
    };
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len())])
        .collect()
}

#[test]
fn a_tool_name_maps_back_to_the_servers_it_may_belong_to() {
    use mcp_bridge::naming::may_name_a_tool_of;
    let servers = [
        "github",
        "GitHub Enterprise",
        "a",
        "a_b",
        &"long-server-".repeat(8),
    ];
    let tools = ["create_issue", "list", &"very_long_tool_name_".repeat(4)];
    let pairs: Vec<(&str, &str)> = servers
        .iter()
        .flat_map(|server| tools.iter().map(move |tool| (*server, *tool)))
        .collect();
    // Every assigned name, cut or told apart by a hash, maps back to its own server.
    for ((server, tool), name) in pairs.iter().zip(assign_names(&pairs)) {
        assert!(
            may_name_a_tool_of(&name, server),
            "{name} of {server}/{tool}"
        );
    }
    // And not to a server whose part differs.
    assert!(!may_name_a_tool_of("mcp_github_create_issue", "gitlab"));
    assert!(!may_name_a_tool_of("mcp_github_create_issue", "a"));
    // A server whose part begins another's may pass (the caller starts both).
    assert!(may_name_a_tool_of("mcp_a_b_list", "a"));
}
