//! The message loop: reads stdin lines, answers requests, records notifications and responses,
//! and applies the scripted faults of [`Options`].

use std::collections::HashSet;
use std::io::{self, BufRead};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::catalog::{Catalog, Paging, page};
use crate::options::Options;
use crate::skills::{self, Skills};
use crate::tools;
use crate::wire::{self, INVALID_REQUEST, METHOD_NOT_FOUND, Output, PARSE_ERROR, message_line};

/// Protocol versions the fixture accepts when a client asks for them.
const SUPPORTED_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The answer to a client asking for a version the fixture does not know.
const LATEST_VERSION: &str = "2025-11-25";

/// State shared by the reading thread and the threads of slow tools.
pub(crate) struct Server {
    pub(crate) opts: Box<Options>,
    pub(crate) out: Output,
    /// Built-in and generated tool definitions, built once.
    tools: Vec<Value>,
    /// The `--tools-json` definitions (read again by `change_tools` with `--tools-json-live`).
    json_tools: Mutex<Vec<Value>>,
    late_tool: Value,
    late_tool_added: AtomicBool,
    initialized_seen: AtomicBool,
    /// Every notification and response received, as the `events` tool reports them.
    events: Mutex<Vec<Value>>,
    /// Serialized ids of cancelled requests; `cancel_signal` wakes the threads waiting on them.
    cancelled: Mutex<HashSet<String>>,
    cancel_signal: Condvar,
    /// Wakes the threads waiting for the client's answer to one of the fixture's requests.
    response_signal: Condvar,
    asked: AtomicUsize,
    pub(crate) grandchild: Option<u32>,
    /// Resources and prompts (`--resources`, `--prompts`).
    catalog: Catalog,
    /// The capabilities the client declared in `initialize`.
    client_capabilities: Mutex<Value>,
    /// Skills (`--skills DIR`).
    skills: Option<Skills>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Server {
    pub(crate) fn new(opts: Box<Options>, out: Output, grandchild: Option<u32>) -> Self {
        let tools = tools::definitions(opts.tools, &opts.named_tools, &[]);
        let json_tools = Mutex::new(opts.json_tools.clone());
        let skills = opts
            .skills
            .clone()
            .map(|root| Skills::new(root, opts.log_reads.clone()));
        Self {
            opts,
            out,
            tools,
            json_tools,
            late_tool: tools::late_tool_definition(),
            late_tool_added: AtomicBool::new(false),
            initialized_seen: AtomicBool::new(false),
            events: Mutex::new(Vec::new()),
            cancelled: Mutex::new(HashSet::new()),
            cancel_signal: Condvar::new(),
            response_signal: Condvar::new(),
            asked: AtomicUsize::new(0),
            grandchild,
            catalog: Catalog::default(),
            client_capabilities: Mutex::new(Value::Null),
            skills,
        }
    }

    /// Serves stdin until it reaches end of file (or cannot be read).
    pub(crate) fn serve(self: &Arc<Self>) {
        let mut input = io::stdin().lock();
        let mut line = Vec::with_capacity(8 * 1024);
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line) {
                Ok(0) => return,
                Ok(_) => self.handle_line(&line),
                Err(err) => {
                    eprintln!("fixture: cannot read stdin: {err}");
                    return;
                }
            }
        }
    }

    fn handle_line(self: &Arc<Self>, line: &[u8]) {
        let line = line.trim_ascii();
        if line.is_empty() {
            return;
        }
        let message: Value = match serde_json::from_slice(line) {
            Ok(message) => message,
            Err(err) => {
                eprintln!("fixture: unparsable line: {err}");
                self.out
                    .send(&wire::error_line(&Value::Null, PARSE_ERROR, "Parse error"));
                return;
            }
        };
        let Value::Object(mut map) = message else {
            self.out.send(&wire::error_line(
                &Value::Null,
                INVALID_REQUEST,
                "Invalid Request: not a JSON object",
            ));
            return;
        };
        match map.remove("method") {
            Some(Value::String(method)) => {
                let params = map.remove("params");
                match map.remove("id") {
                    Some(id) => self.handle_request(id, method, params.unwrap_or(Value::Null)),
                    None => self.handle_notification(method, params),
                }
            }
            None if map.contains_key("id")
                && (map.contains_key("result") || map.contains_key("error")) =>
            {
                self.record(json!({ "response": Value::Object(map) }));
            }
            _ => {
                let id = map.remove("id").unwrap_or(Value::Null);
                self.out.send(&wire::error_line(
                    &id,
                    INVALID_REQUEST,
                    "Invalid Request: neither a request, a notification nor a response",
                ));
            }
        }
    }

    fn handle_request(self: &Arc<Self>, id: Value, method: String, params: Value) {
        let hold = self.opts.holds.get(&method).cloned();
        let delay = self.opts.delays.get(&method).copied();
        if hold.is_some() || delay.is_some() {
            let server = Arc::clone(self);
            thread::spawn(move || {
                if let Some(fifo) = hold {
                    // Opening a named pipe to read blocks until a writer opens it: the test's
                    // word that this answer may go.
                    if let Err(err) = std::fs::File::open(&fifo) {
                        eprintln!("fixture: cannot open {fifo} to wait on it: {err}");
                        return;
                    }
                }
                if let Some(ms) = delay {
                    thread::sleep(Duration::from_millis(ms));
                }
                server.answer(id, &method, params);
            });
        } else {
            self.answer(id, &method, params);
        }
    }

    fn answer(self: &Arc<Self>, id: Value, method: &str, params: Value) {
        self.crash_if_asked(method);
        if self.opts.hang_at.contains(method) {
            eprintln!("fixture: hanging at {method}");
            return;
        }
        if let Some(&bytes) = self.opts.huge_line_at.get(method) {
            self.out.send_huge_line(bytes);
            return;
        }
        if self.opts.false_answers_at.contains(method) {
            // Two messages with the request's id that are not responses, before the real one.
            self.out.send(&message_line(
                &json!({"id": id, "result": {"false": "no jsonrpc member"}}),
            ));
            self.out
                .send(&message_line(&json!({"jsonrpc": "2.0", "id": id})));
        }
        if self.opts.no_tools && method.starts_with("tools/") {
            self.send_error(
                &id,
                METHOD_NOT_FOUND,
                &format!("Method not found: {method}"),
            );
            return;
        }
        if let Some(answer) = self
            .skills
            .as_ref()
            .and_then(|skills| skills.answer(method, &params, self.paging()))
        {
            match answer {
                Ok(result) => self.send_result(&id, &result),
                Err((code, message)) => self.send_error(&id, code, &message),
            }
            return;
        }
        let offered = |prefix: &str, flag: bool| method.starts_with(prefix) && flag;
        if offered("resources/", self.opts.resources) || offered("prompts/", self.opts.prompts) {
            match self.catalog.answer(method, &params, self.paging()) {
                Ok(result) => self.send_result(&id, &result),
                Err((code, message)) => self.send_error(&id, code, &message),
            }
            return;
        }
        match method {
            "initialize" => {
                if let Some(capabilities) = params.get("capabilities") {
                    *lock(&self.client_capabilities) = capabilities.clone();
                }
                self.send_result(&id, &self.initialize_result(&params));
            }
            "ping" => self.send_result(&id, &json!({})),
            "tools/list" => match self.list_tools(&params) {
                Ok(result) => self.send_result(&id, &result),
                Err((code, message)) => self.send_error(&id, code, &message),
            },
            "tools/call" => tools::call(self, id, params),
            _ => self.send_error(
                &id,
                METHOD_NOT_FOUND,
                &format!("Method not found: {method}"),
            ),
        }
    }

    fn crash_if_asked(&self, method: &str) {
        if self.opts.crash_at.contains(method) {
            match &self.opts.crash_stderr {
                Some(text) => eprintln!("{text}"),
                None => eprintln!("fixture: crashing at {method}"),
            }
            std::process::exit(self.opts.exit_code);
        }
    }

    fn handle_notification(self: &Arc<Self>, method: String, params: Option<Value>) {
        self.crash_if_asked(&method);
        match method.as_str() {
            "notifications/initialized" if !self.initialized_seen.swap(true, Ordering::AcqRel) => {
                self.after_initialized();
            }
            "notifications/cancelled" => {
                if let Some(request_id) = params.as_ref().and_then(|p| p.get("requestId")) {
                    lock(&self.cancelled).insert(request_id.to_string());
                    self.cancel_signal.notify_all();
                }
            }
            // As a real server would: ask for the new roots (answer recorded under that id).
            "notifications/roots/list_changed" => self.notify(&json!({
                "jsonrpc": "2.0",
                "id": "srv-roots-changed",
                "method": "roots/list",
            })),
            _ => {}
        }
        let mut event = Map::new();
        event.insert("method".to_owned(), Value::String(method));
        if let Some(params) = params {
            event.insert("params".to_owned(), params);
        }
        self.record(Value::Object(event));
    }

    fn after_initialized(self: &Arc<Self>) {
        if let Some(ms) = self.opts.list_change_after {
            let server = Arc::clone(self);
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(ms));
                server.add_late_tool();
            });
        }
        if let Some(ms) = self.opts.catalog_change_after {
            let server = Arc::clone(self);
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(ms));
                server.change_catalog();
            });
        }
        if self.opts.server_requests {
            let requests = [
                json!({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"}),
                json!({"jsonrpc": "2.0", "id": "srv-roots", "method": "roots/list"}),
                json!({
                    "jsonrpc": "2.0",
                    "id": "srv-unknown",
                    "method": "sampling/createMessage",
                    "params": {
                        "messages": [
                            {"role": "user", "content": {"type": "text", "text": "hello"}}
                        ],
                        "maxTokens": 16,
                    },
                }),
            ];
            for request in &requests {
                self.out.send(&wire::message_line(request));
            }
        }
    }

    pub(crate) fn record(&self, event: Value) {
        lock(&self.events).push(event);
        self.response_signal.notify_all();
    }

    /// Sends `elicitation/create` and waits (a minute at most) for the client's answer: its
    /// `result`, its `error`, or `{"timeout": true}`.
    pub(crate) fn ask(&self, message: &str, schema: &Value) -> Value {
        let params = json!({"message": message, "requestedSchema": schema});
        self.request_client("srv-ask", "elicitation/create", Some(params))
    }

    /// Asks the client to open `url` (`elicitation/create` in URL mode) and waits for its
    /// answer, as [`ask`](Self::ask) does.
    pub(crate) fn ask_to_open(&self, message: &str, url: &str) -> Value {
        let params = json!({"mode": "url", "message": message, "url": url,
            "elicitationId": "fixture-page"});
        self.request_client("srv-ask", "elicitation/create", Some(params))
    }

    /// True when the client declared the capability `name` in `initialize`.
    pub(crate) fn client_declared(&self, name: &str) -> bool {
        lock(&self.client_capabilities).get(name).is_some()
    }

    /// Sends the client a `method` request (id `<prefix>-<n>`) and waits (a minute at most)
    /// for its answer: its `result`, its `error`, or `{"timeout": true}`.
    pub(crate) fn request_client(
        &self,
        prefix: &str,
        method: &str,
        params: Option<Value>,
    ) -> Value {
        let number = self.asked.fetch_add(1, Ordering::AcqRel) + 1;
        let id = json!(format!("{prefix}-{number}"));
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let (Some(params), Value::Object(map)) = (params, &mut request) {
            map.insert("params".to_owned(), params);
        }
        self.out.send(&wire::message_line(&request));
        let answer_of = |events: &Vec<Value>| {
            events.iter().find_map(|event| {
                let response = event.get("response")?;
                (response.get("id") == Some(&id)).then(|| {
                    response
                        .get("result")
                        .or_else(|| response.get("error"))
                        .cloned()
                        .unwrap_or(Value::Null)
                })
            })
        };
        let events = lock(&self.events);
        let (events, _) = self
            .response_signal
            .wait_timeout_while(events, Duration::from_secs(60), |events| {
                answer_of(events).is_none()
            })
            .unwrap_or_else(PoisonError::into_inner);
        answer_of(&events).unwrap_or_else(|| json!({"timeout": true}))
    }

    /// Every notification and response received so far, in arrival order.
    pub(crate) fn events(&self) -> Value {
        Value::Array(lock(&self.events).clone())
    }

    pub(crate) fn send_result(&self, id: &Value, result: &Value) {
        self.out.send(&wire::result_line(id, result));
    }

    pub(crate) fn send_error(&self, id: &Value, code: i64, message: &str) {
        self.out.send(&wire::error_line(id, code, message));
    }

    /// Waits `duration` unless the request with this id is cancelled first; true if it was.
    pub(crate) fn wait_unless_cancelled(&self, id: &Value, duration: Duration) -> bool {
        let key = id.to_string();
        let cancelled = lock(&self.cancelled);
        let (cancelled, _timeout) = self
            .cancel_signal
            .wait_timeout_while(cancelled, duration, |set| !set.contains(&key))
            .unwrap_or_else(PoisonError::into_inner);
        cancelled.contains(&key)
    }

    /// Forgets a finished request's cancellation, so the set does not grow with ids in use.
    pub(crate) fn forget_request(&self, id: &Value) {
        lock(&self.cancelled).remove(&id.to_string());
    }

    /// Adds `late_tool` to the list and sends `notifications/tools/list_changed`; with
    /// `--tools-json-live`, reads the `--tools-json` files again instead of adding `late_tool`
    /// (a file that cannot be read leaves the list as it was).
    pub(crate) fn add_late_tool(&self) {
        if self.opts.json_tools_live {
            let mut tools = Vec::new();
            for path in &self.opts.json_tools_files {
                match crate::options::json_tools(path) {
                    Ok(read) => tools.extend(read),
                    Err(message) => {
                        eprintln!("fixture: {message}");
                        return;
                    }
                }
            }
            *lock(&self.json_tools) = tools;
        } else {
            self.late_tool_added.store(true, Ordering::Release);
        }
        self.notify(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
        }));
    }

    /// Adds the late resource and prompt and sends the list-change notifications of the lists
    /// offered.
    fn change_catalog(&self) {
        self.catalog.change();
        for (offered, method) in [
            (self.opts.resources, "notifications/resources/list_changed"),
            (self.opts.prompts, "notifications/prompts/list_changed"),
        ] {
            if offered {
                self.notify(&json!({"jsonrpc": "2.0", "method": method}));
            }
        }
    }

    /// Sends a notification (or any whole message) to the client.
    pub(crate) fn notify(&self, message: &Value) {
        self.out.send(&message_line(message));
    }

    /// True if `name` is one of the `--tools-json` tools listed now.
    pub(crate) fn has_json_tool(&self, name: &str) -> bool {
        lock(&self.json_tools)
            .iter()
            .any(|tool| tool["name"] == name)
    }

    /// True if `name` is `late_tool` and it has been added.
    pub(crate) fn has_late_tool(&self, name: &str) -> bool {
        name == tools::LATE_TOOL && self.late_tool_added.load(Ordering::Acquire)
    }

    fn initialize_result(&self, params: &Value) -> Value {
        let version = match &self.opts.protocol_version {
            Some(forced) => forced.as_str(),
            None => params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .filter(|asked| SUPPORTED_VERSIONS.contains(asked))
                .unwrap_or(LATEST_VERSION),
        };
        let mut capabilities = if self.opts.no_tools {
            json!({"prompts": {}, "logging": {}})
        } else {
            json!({"tools": {"listChanged": true}, "logging": {}})
        };
        if let Value::Object(map) = &mut capabilities {
            if self.opts.prompts {
                map.insert("prompts".to_owned(), json!({"listChanged": true}));
            }
            if self.opts.resources {
                map.insert("resources".to_owned(), json!({"listChanged": true}));
            }
            if self.skills.is_some() {
                map.entry("resources").or_insert_with(|| json!({}));
                map.insert("extensions".to_owned(), json!({ skills::EXTENSION: {} }));
            }
        }
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": self.opts.name, "version": "1.0.0"},
        });
        if let (Some(instructions), Value::Object(map)) = (&self.opts.instructions, &mut result) {
            map.insert(
                "instructions".to_owned(),
                Value::String(instructions.clone()),
            );
        }
        result
    }

    /// One page of the tool list (paged as the resource and prompt lists are).
    fn list_tools(&self, params: &Value) -> Result<Value, (i64, String)> {
        let late = self
            .late_tool_added
            .load(Ordering::Acquire)
            .then_some(&self.late_tool);
        let json_tools = lock(&self.json_tools);
        let tools = self
            .tools
            .iter()
            .chain(json_tools.iter())
            .chain(late)
            .cloned()
            .collect();
        page(tools, "tools", params, self.paging())
    }

    /// `--page-size` and `--repeat-cursor`, for every list.
    fn paging(&self) -> Paging {
        Paging {
            page_size: self.opts.page_size,
            repeat_cursor: self.opts.repeat_cursor,
        }
    }
}
