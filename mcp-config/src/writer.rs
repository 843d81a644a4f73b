//! Config writing for the `/mcp` commands.
