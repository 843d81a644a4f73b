//! The startup gate of one [`McpManager::connect_servers`](crate::McpManager::connect_servers)
//! call: whether a server's result comes in time for the gate's answer or late.
//!
//! The gate answers after at most the startup timeout; a server it waits for past that (one
//! still connecting with no cached tools to offer, or a `required` one) is *awaited*, and its
//! result is in the answer too. Any other result after the answer is late: it replaces only
//! that server's tools and is told as an event. A connection no gate waits for (a reconnect,
//! the first use of a server served on demand) is late by definition.
//!
//! The gate's lock is held while a result is recorded, so the gate sees either a server still
//! connecting or its result, never neither.

use std::collections::HashSet;

/// What one call's pipelines need to know of its gate.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    passed: bool,
    /// Servers the gate waits for past its deadline: not late.
    awaited: HashSet<String>,
}

impl Gate {
    /// Whether a result of `server` recorded now is late: the gate has answered without it.
    pub(crate) fn is_late(&self, server: &str) -> bool {
        self.passed && !self.awaited.contains(server)
    }

    /// The gate waits for `server` past its deadline.
    pub(crate) fn await_past_deadline(&mut self, server: &str) {
        self.awaited.insert(server.to_owned());
    }

    /// Whether the gate waits for `server` past its deadline.
    pub(crate) fn awaits(&self, server: &str) -> bool {
        self.awaited.contains(server)
    }

    /// The gate answers: what is recorded from now on is late (unless awaited).
    pub(crate) fn pass(&mut self) {
        self.passed = true;
    }
}

/// Whether a result recorded now under `gate` is late; with no gate (a reconnect, a first use)
/// it always is.
pub(crate) fn is_late(gate: Option<&Gate>, server: &str) -> bool {
    gate.is_none_or(|gate| gate.is_late(server))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_late_once_the_gate_answered_unless_it_was_awaited() {
        let mut gate = Gate::default();
        assert!(!gate.is_late("a"), "before the answer nothing is late");
        gate.await_past_deadline("awaited");
        gate.pass();
        assert!(gate.is_late("a"));
        assert!(!gate.is_late("awaited"));
        assert!(gate.awaits("awaited"));
        assert!(is_late(None, "any"), "with no gate every result is late");
        assert!(!is_late(Some(&Gate::default()), "a"));
    }
}
