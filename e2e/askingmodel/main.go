// Command askingmodel is a real model's clarifier as a double, for the
// end-to-end suites: an OpenAI-compatible server (deepresearchtest's, the
// real wire format) whose model asks two clarifying questions — one with
// markup in it, which every page must show as text — and answers every
// other call with the offline model. It prints "askingmodel: listening on
// URL" and serves until it is interrupted or its stdin closes; each
// planner call's message (where the answers to the questions must be) is
// printed as a line "planner: " and the message as a JSON string. Point
// deepresearch at it with --provider openai --model scripted --base-url
// URL/v1.
package main

import (
	"context"
	"encoding/json"
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
	system, human := "", ""
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				switch m.Role {
				case llms.ChatMessageTypeSystem:
					system += t.Text
				case llms.ChatMessageTypeHuman:
					human += t.Text
				}
			}
		}
	}
	switch {
	case strings.HasPrefix(system, "You decide whether"):
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "stop", Content: Questions}}}, nil
	case strings.HasPrefix(system, "You plan"):
		b, _ := json.Marshal(human)
		fmt.Printf("planner: %s\n", b)
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
