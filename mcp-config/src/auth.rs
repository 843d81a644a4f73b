//! Connect-time resolution of `!command` values and OAuth tokens.
