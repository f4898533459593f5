// Command askingmodel is a real model's clarifier as a double, for the
// end-to-end suites: an OpenAI-compatible server (deepresearchtest's, the
// real wire format) whose model asks two clarifying questions — one with
// markup in it, which every page must show as text — and answers every
// other call with the offline model. It prints "askingmodel: listening on
// URL" and serves until it is interrupted or its stdin closes. Point
// deepresearch at it with --provider openai --model scripted --base-url
// URL/v1.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/deepresearchtest"
)

// Questions is the clarifier's reply.
const Questions = `{"questions":[` +
	`{"question":"Which cables: <b>telegraph</b> or fibre?","assumption":"telegraph"},` +
	`{"question":"Which ocean?","assumption":"the Atlantic"}]}`

type asker struct{ offline llms.Model }

func (a asker) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	system := ""
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeSystem {
			continue
		}
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				system += t.Text
			}
		}
	}
	if strings.HasPrefix(system, "You decide whether") {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "stop", Content: Questions}}}, nil
	}
	return a.offline.GenerateContent(ctx, msgs, opts...)
}

func (a asker) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, a, prompt, opts...)
}

func main() {
	srv := deepresearchtest.NewOpenAIServer(asker{offline: deepresearchtest.Model(0)}, deepresearchtest.OpenAIOptions{})
	defer srv.Close()
	fmt.Println("askingmodel: listening on " + srv.URL)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		io.Copy(io.Discard, os.Stdin) // the parent hung up
		stop()
	}()
	<-ctx.Done()
}
