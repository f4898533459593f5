// Package mcpsource makes another MCP server a research source: its tools
// become a search backend (search.Backend) that research agents search and
// read like the local corpus or a web engine.
//
// A Source connects on first use, over stdio (a child process: Server's
// Command and Env, nothing inherited) or streamable HTTP (Server's URL),
// lists the server's tools and maps them by what they do: a search tool,
// which finds documents for a query, and a read tool, which opens one by
// its locator (a path, a URI). Settings may name them and their arguments
// (Mapping); otherwise they are detected by their input schema (Detect).
// A search tool that takes no query (a listing, such as the filesystem
// server's search_files with a fixed glob) lists candidates that Search
// reads and ranks against the query itself; a server with no search tool
// but resources is searched by listing them (resources/list) alike.
//
// Tool output is untrusted: every text is bounded (Options.MaxText),
// cleaned as a corpus file is (internal/extract: control characters and
// terminal escapes removed) and read as a document; a tool result marked
// isError becomes a *ToolError naming the server and the tool. Every call
// runs under its context and Options.Timeout (on Options.Clock);
// cancelling it cancels the request on the server
// (notifications/cancelled). Close ends the session and reaps the child
// process.
//
// Results keep their locator as DocID (the path or URI), a file: URL for
// a path (else the URI itself) and the channel "mcp:NAME". The journal
// wraps a Source like any backend (internal/journal.Backend), so a run
// that searched an MCP server replays offline.
package mcpsource
