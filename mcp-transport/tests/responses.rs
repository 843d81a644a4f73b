//! How an answer finds its request: whatever the order and spacing of its members, an answer
//! to an id never used is ignored, and an answer whose body does not parse fails its own call
//! at once while the connection reads on.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use bytes::Bytes;
use common::channel::{ScriptedServer, connected};
use common::guard;

/// Sends `text` as it is, one message.
fn send_raw(server: &ScriptedServer, text: String) {
    server.replies.send(Ok(Bytes::from(text))).expect("alive");
}

const DONE: &str = r#"{"content":[{"type":"text","text":"done"}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_taken_whatever_the_order_and_spacing_of_their_members() {
    let (client, mut server) = connected().await;
    let shapes: [fn(&str) -> String; 3] = [
        |id| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{DONE}}}"#),
        |id| format!(r#"{{"result":{DONE},"id":{id},"jsonrpc":"2.0"}}"#),
        |id| format!(r#"{{ "jsonrpc" : "2.0" , "id" : {id} , "result" : {DONE} }}"#),
    ];
    for shape in shapes {
        let call = client.call_tool("work", None);
        let answer = async {
            let request = server.next().await;
            send_raw(&server, shape(&request["id"].to_string()));
        };
        let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
        let result = result.expect("answered");
        assert_eq!(common::text(&result), "done");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_to_an_id_never_used_is_ignored() {
    let (client, mut server) = connected().await;
    let call = client.call_tool("work", None);
    let answer = async {
        let request = server.next().await;
        let id = request["id"].as_u64().expect("a number id");
        send_raw(
            &server,
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#,
                id + 1000
            ),
        );
        send_raw(
            &server,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{DONE}}}"#),
        );
    };
    let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
    assert_eq!(common::text(&result.expect("answered")), "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_whose_body_does_not_parse_fails_its_call_at_once_and_the_next_call_works() {
    let (client, mut server) = connected().await;
    let call = client.call_tool("work", None);
    let answer = async {
        let request = server.next().await;
        let id = &request["id"];
        send_raw(
            &server,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","te"#),
        );
    };
    let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
    let error = result.expect_err("a cut answer");
    assert!(
        error.to_string().contains("answer could not be read"),
        "{error}"
    );

    let call = client.call_tool("work", None);
    let answer = async {
        let request = server.next().await;
        send_raw(
            &server,
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{DONE}}}"#,
                request["id"]
            ),
        );
    };
    let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
    assert_eq!(common::text(&result.expect("answered")), "done");
}
