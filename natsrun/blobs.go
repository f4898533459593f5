package natsrun

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/deepresearch/deepresearch/runstore"
	"github.com/nats-io/nats.go/jetstream"
)

// A Store keeps a run's report and its cited sources' text as blobs in
// the reports bucket (Names.ReportsBucket), a KV bucket, rather than in
// an object store: nats.go v1.55's ObjectStore.Put starts a goroutine per
// put that can wait for ever (it may read its status channel after the
// put has set it to nil), and a server puts one report and a source for
// every citation. A blob is its head under its name — the chunks'
// generation, count and size — and its chunks, each at most blobChunk
// bytes (well under NATS's 1 MiB max_payload), under name.<gen>.<i>. A
// put writes the chunks, then the head, then deletes the chunks the
// head it replaced named: a reader sees the old blob or the new, whole.

// blobChunk is the most bytes of one chunk of a blob.
const blobChunk = 256 << 10

// blobHead is a blob's head.
type blobHead struct {
	Gen    string `json:"gen"`
	Chunks int    `json:"chunks"`
	Size   int    `json:"size"`
}

// putBlob stores data as the blob name of kv, replacing one stored before.
func putBlob(ctx context.Context, kv jetstream.KeyValue, name string, data []byte) error {
	head := blobHead{Gen: rand.Text()[:10], Size: len(data)}
	for off := 0; off < len(data); off += blobChunk {
		end := min(off+blobChunk, len(data))
		if _, err := kv.Put(ctx, name+"."+head.Gen+"."+strconv.Itoa(head.Chunks), data[off:end]); err != nil {
			return err
		}
		head.Chunks++
	}
	var old blobHead
	if e, err := kv.Get(ctx, name); err == nil {
		json.Unmarshal(e.Value(), &old) //nolint:errcheck // an unreadable head names no chunks
	}
	b, _ := json.Marshal(head)
	if _, err := kv.Put(ctx, name, b); err != nil {
		return err
	}
	for i := range old.Chunks {
		_ = kv.Purge(ctx, name+"."+old.Gen+"."+strconv.Itoa(i)) // garbage left on failure, never read
	}
	return nil
}

// getBlob returns the blob name of kv (runstore.ErrNotFound when
// there is none). A blob replaced while it is read is read again.
func getBlob(ctx context.Context, kv jetstream.KeyValue, name string) ([]byte, error) {
	for try := 0; ; try++ {
		e, err := kv.Get(ctx, name)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			return nil, runstore.ErrNotFound
		case err != nil:
			return nil, err
		}
		var head blobHead
		if err := json.Unmarshal(e.Value(), &head); err != nil {
			return nil, fmt.Errorf("the head of %s is unreadable: %w", name, err)
		}
		data := make([]byte, 0, head.Size)
		for i := range head.Chunks {
			c, err := kv.Get(ctx, name+"."+head.Gen+"."+strconv.Itoa(i))
			if err != nil {
				data = nil
				if errors.Is(err, jetstream.ErrKeyNotFound) && try < 3 {
					break // replaced meanwhile: read the new head
				}
				return nil, fmt.Errorf("chunk %d of %s: %w", i, name, err)
			}
			data = append(data, c.Value()...)
		}
		if data == nil && head.Size > 0 {
			continue
		}
		if len(data) != head.Size {
			return nil, fmt.Errorf("%s holds %d bytes; its head says %d", name, len(data), head.Size)
		}
		return data, nil
	}
}
