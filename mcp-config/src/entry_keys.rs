//! The keys of a server entry that this runtime reads beside its transport's fields, kept among
//! the entry's other settings ([`ServerConfig::extra`](crate::ServerConfig::extra)).

/// The key of a remote server's header-printing command
/// ([`ServerConfig::headers_helper`](crate::ServerConfig::headers_helper)).
pub(crate) const HEADERS_HELPER: &str = "headersHelper";

/// The entry key of a server's protocol version pin.
pub(crate) const PROTOCOL_VERSION_KEY: &str = "protocolVersion";

/// The entry key of a server's roots setting.
pub(crate) const ROOTS_KEY: &str = "roots";

/// The key of a server's [`ServerConfig::always_load`](crate::ServerConfig::always_load) setting
/// (Claude Code's).
pub(crate) const ALWAYS_LOAD_KEY: &str = "alwaysLoad";
