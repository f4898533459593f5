//go:build !linux

package pdftext

import "github.com/tetratelabs/wazero/experimental"

// linearMemory: without mmap, wazero's own memories are used, capped by
// the runtime's page limit; a refused grow is not told apart.
type linearMemory struct{}

func mmapAllocator(int64, func(*linearMemory)) experimental.MemoryAllocator { return nil }

func (*linearMemory) outOfMemory() bool { return false }

func (*linearMemory) capacity() int64 { return 0 }

func roomFor(int64) error { return nil }

func (*linearMemory) release() {}

const ownMemory = false
