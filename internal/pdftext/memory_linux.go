package pdftext

import (
	"sync"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory is the memory of one PDFium instance, mapped outside the
// Go heap: its whole capacity is reserved (PROT_NONE, no memory used) and
// made usable as the instance grows, so a grow never copies the memory
// (a Go slice that grows by append briefly holds the old and the new, and
// the garbage collector lets the heap reach twice what is live: a PDF
// that asked for the 512 MiB cap took 1.5 GB). A grow past the capacity
// is refused, and remembered: the read fails with ErrTooLarge instead of
// passing for a page without text.
//
// The memory is given back to the system when the instance closes (Free)
// but unmapped only once the read is over too (release): a killed
// instance is closed while its code may still be running, and must find
// its memory mapped (zeros) until it stops.
type linearMemory struct {
	mu       sync.Mutex
	buf      []byte // the reservation
	size     int    // bytes usable
	refused  bool   // a grow past the capacity was refused
	freed    bool   // the instance closed
	released bool   // the read is over
}

// mmapAllocator returns the allocator of memories of capacity max bytes,
// and reports each memory it makes to made.
func mmapAllocator(capacity int64, made func(*linearMemory)) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(initial, _ uint64) experimental.LinearMemory {
		// A process short of address space (ulimit -v, prlimit --as)
		// gets a smaller memory, halved until it fits but never below
		// minMemory nor what the instance starts with: a PDF that needs
		// more fails with ErrTooLarge.
		size := capacity
		buf, err := reserve(size)
		for err != nil && size/2 >= max(int64(initial), minMemory) {
			size /= 2
			buf, err = reserve(size)
		}
		if err != nil {
			// Not even that (Read looked, but the address space went
			// since): an instance without memory, which wazero refuses
			// with a panic.
			buf = nil
		}
		m := &linearMemory{buf: buf}
		made(m)
		return m
	})
}

// roomFor reports, as an error, that the process has not size bytes of
// address space left to reserve (ulimit -v, prlimit --as): the reservation
// is tried and undone.
func roomFor(size int64) error {
	buf, err := reserve(size)
	if err != nil {
		return err
	}
	return syscall.Munmap(buf)
}

// reserve maps size bytes of address space, unusable until Reallocate
// makes them so.
func reserve(size int64) ([]byte, error) {
	return syscall.Mmap(-1, 0, int(size), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
}

// capacity is how many bytes m may grow to: the cap, or less when the
// process had not the address space for it (see mmapAllocator).
func (m *linearMemory) capacity() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.buf))
}

// Reallocate implements experimental.LinearMemory: it makes the first
// size bytes usable and returns them, or nil past the capacity.
func (m *linearMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if size > uint64(len(m.buf)) {
		m.refused = true
		return nil
	}
	if n := int(size); n > m.size {
		if err := syscall.Mprotect(m.buf[m.size:n], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			m.refused = true
			return nil
		}
		m.size = n
	}
	return m.buf[:size:size]
}

// Free implements experimental.LinearMemory: the memory goes back to the
// system; it is unmapped if the read is over.
func (m *linearMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.freed = true
	if m.buf == nil {
		return
	}
	if m.released {
		m.unmap()
		return
	}
	syscall.Madvise(m.buf[:m.size], syscall.MADV_DONTNEED)
}

// release says the read is over: the memory is unmapped if its instance
// has closed, else when it closes.
func (m *linearMemory) release() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.released = true
	if m.freed && m.buf != nil {
		m.unmap()
	}
}

func (m *linearMemory) unmap() {
	syscall.Munmap(m.buf)
	m.buf, m.size = nil, 0
}

// outOfMemory reports whether a grow of m was refused.
func (m *linearMemory) outOfMemory() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refused
}

// ownMemory: instances get memories of mmapAllocator, which enforce the
// cap themselves.
const ownMemory = true
