// Package journal records every call a research run pays for — model
// calls, searches, document and page fetches — and answers them again from
// the record, so that a run whose process died resumes without paying twice
// for what it had done, and any stored run replays offline, byte for byte.
//
// # Entries
//
// A journal is one run's append-only sequence of entries, each encoded as
// one JSON object (Encode, Decode) that carries the format version (field
// "v", Version). An entry records one completed call: its kind, the scope
// of the run it belongs to, the hash of its request (Key, see below), which
// occurrence of that request in its scope it was (N), and its complete
// outcome — a model's response with every streamed chunk, tool calls, stop
// reason and usage; a search's query and results; a page's URL, final URL,
// text, hash and fetch time — or the error it ended with. A Header entry
// opens a journal: the format version, the program that wrote it, and the
// run's manifest (what the caller needs to run it again: the request and
// the settings that shape it; never a key).
//
// A text longer than InlineText — a corpus file or a web page of hundreds
// of kilobytes or megabytes — is kept once per run, in a text entry keyed
// by its hash (TextKey); the document and page entries that read it refer
// to it (DocumentRecord.TextKey, PageRecord.TextKey), however many agents,
// judges and cycles read it, and a resumed attempt refers to the text its
// earlier attempt kept. Such a text entry is appended before the first
// entry that refers to it; when it cannot be appended, neither is that
// entry (the call's answer is returned all the same). A text whose JSON
// form is longer than TextPart is kept in parts, one entry each, so that
// every entry fits a log that bounds its messages; each is encoded in one
// pass into one buffer its size.
//
// A journal written in another format version is refused by name
// (*VersionError), never misread: Decode reads Version, and every older
// version a later format still reads is converted when decoded.
//
// # Keys and scopes
//
// The pipeline of a run is deterministic given the answers to its calls: run
// again from the start with the same answers, it makes the same requests in
// the same order. A request is identified by the SHA-256 of a canonical
// encoding of everything that shapes its answer (for a model: the messages,
// every call option, and whether it streams; see ModelKey), so the same
// request hashes the same in every process and every version of this
// package that reads the format. Runs make identical requests more than
// once (the same search in two turns), so an entry is found by its scope,
// kind, key and occurrence: the n-th identical request of a scope is
// answered by the n-th answer recorded for it.
//
// The scope (WithScope) is the part of a run a call belongs to, named as a
// path whose first element is the stage: "planner", "researcher/t2",
// "writer", "verify". Scopes make the occurrence count independent of how
// parallel agents interleave: only calls of the same scope are counted
// together, and within a scope calls are made in a deterministic order —
// except identical requests made at once, whose recorded answers are then
// interchangeable, as nothing tells their callers apart. The stage names
// what Options.Live selects.
//
// # Recording and replaying
//
// A Journal is one run's: it holds the entries an earlier attempt recorded
// and appends new ones to a Log. It travels in the context (NewContext), so
// the wrappers — Model around an llms.Model, Backend around a search
// backend, Pages around a page fetcher — are installed once, where the
// models and backends are built, and every call made in a run's context is
// journaled, whichever component makes it (agents, relevance judges,
// verification, later stages, workers on other machines). A call made with
// no Journal in its context passes through untouched.
//
// A call found in the journal is answered from it: a streamed model call
// hands its recorded chunks to the caller's streaming func, in order, as the
// provider did. A call not found is made and, once it has completed, its
// entry is appended to the Log before the answer is returned: nothing that
// follows from a call (an event, a later call) can be stored before the
// call itself. A call that ends because its caller's deadline passed (an
// agent's time limit) is recorded too, as the deadline it met; a call ended
// by cancellation (the run was stopped, the process is shutting down) is
// not: it was not completed, and a resumed run makes it again.
//
// Offline (Options.Offline), nothing is called: a call the journal does not
// hold fails with ErrNotJournaled. Options.Live names stages whose model
// calls are made live even so (their searches and fetches still come from
// the journal when it holds them), to try a stage again against recorded
// research.
//
// # Cost
//
// Recording costs one hash of the request (a canonical JSON encoding of the
// conversation and SHA-256: tens of microseconds for a long conversation)
// and one appended entry, whose commit the Log may share with other
// writers (the SQLite store commits entries and events in batches).
// Replaying costs the hash and a map lookup.
package journal
