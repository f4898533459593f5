package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch/internal/heappeak"
)

// BenchmarkExportLarge measures issue 18's amplification case at the
// bounds citation_add now holds: an index of 100 and of 1,000 sources
// (MaxEntries' default) whose URLs are 2048 bytes (the most) and titles
// 500 bytes, each cited in 32 sections (the most); then one
// citation_export over the
// SDK's in-memory transport. It reports the live heap the index takes,
// the export's peak live heap and the reply's size (go test ./mcpserver
// -run '^$' -bench ExportLarge -benchtime 3x).
func BenchmarkExportLarge(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("%d entries", n), func(b *testing.B) {
			ctx := context.Background()
			// The index is filled through the tools' own code (the SDK's
			// round trips would take minutes); the export is served over
			// StdioTransport to a client that reads the reply's bytes and
			// decodes nothing, so that the heap is the server's.
			srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
			before := heappeak.Live()
			t := addToolsFor(srv, Options{})
			id, err := t.ix.create()
			if err != nil {
				b.Fatal(err)
			}
			title := strings.Repeat("t", maxTitle)
			for i := range n {
				u := fmt.Sprintf("https://a.example/%06d/", i)
				u += strings.Repeat("p", maxURL-len(u))
				for s := range 32 {
					if _, _, err := t.ix.add(id, u, title, "web", fmt.Sprint("section ", s)); err != nil {
						b.Fatal(err)
					}
				}
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			served := make(chan error, 1)
			go func() { served <- srv.Run(ctx, &StdioTransport{Reader: inR, Writer: outW}); outW.Close() }()
			defer func() { inW.Close(); io.Copy(io.Discard, outR); <-served }()
			out := bufio.NewReaderSize(outR, 1<<20)
			roundTrip := func(line string) int {
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					part, err := out.ReadSlice('\n')
					n += len(part)
					if err == nil {
						return n
					}
					if err != bufio.ErrBufferFull {
						b.Fatal(err)
					}
				}
			}
			roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			index := heappeak.Live() - before
			peak := heappeak.Start()
			var reply int
			for b.Loop() {
				reply = roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"citation_export","arguments":{"index_id":"` + id + `"}}}`)
			}
			b.ReportMetric(float64(index)/(1<<20), "index-MB")
			b.ReportMetric(peak(), "export-peak-heap-MB")
			b.ReportMetric(float64(reply)/(1<<20), "reply-MB")
		})
	}
}
