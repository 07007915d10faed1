package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// relay moves the provider's stdout and stderr to fds 1 and 2: the first stdout line (the
// handshake, or a start failure in its place) verbatim, every later stdout line as a go-plugin log
// line on stderr, redacted; stderr redacted; in pass-through, both as they are.
type relay struct {
	secrets    SecretSet
	watchdog   *Watchdog
	pass       atomic.Bool
	outMu      sync.Mutex // guards fd 1 and the stdout state below
	errMu      sync.Mutex // keeps each write to fd 2 whole
	stdoutF    StreamFilter
	stderrF    StreamFilter
	handshake  []byte
	handshaken bool
	// heldFirst: a start failure's line in the handshake's place, held until the provider ends or
	// firstLineHold passes; written then, after its stderr.
	heldFirst  []byte
	stdoutLine []byte
	exits      chan int // the code the provider announced on fd 3 (the first one)
}

func newRelay(watchdog *Watchdog) *relay {
	r := &relay{watchdog: watchdog, exits: make(chan int, 1)}
	r.stdoutF.secrets = &r.secrets
	r.stderrF.secrets = &r.secrets
	return r
}

func (r *relay) learn(secrets []string) { r.secrets.Learn(secrets) }
func (r *relay) watchGroup(pgid int)    { r.watchdog.WatchGroup(pgid) }
func (r *relay) forgetGroup(pgid int)   { r.watchdog.ForgetGroup(pgid) }
func (r *relay) passThrough()           { r.pass.Store(true) }
func (r *relay) exiting(code int) {
	select {
	case r.exits <- code:
	default:
	}
}

func writeErr(r *relay, data []byte) {
	if len(data) == 0 {
		return
	}
	r.errMu.Lock()
	defer r.errMu.Unlock()
	_, _ = os.Stderr.Write(data)
}

// stdoutLogLine is a go-plugin log line (hclog's JSON keys, sorted; six fractional digits, as go-plugin parses them).
func stdoutLogLine(message []byte) []byte {
	b := make([]byte, 0, len(message)+96)
	b = append(b, `{"@level":"info","@message":`...)
	b = appendJSONString(b, strings.ToValidUTF8(string(message), "\uFFFD"))
	b = append(b, `,"@timestamp":"`...)
	b = time.Now().UTC().AppendFormat(b, "2006-01-02T15:04:05.000")
	return append(b, `000Z","stream":"stdout"}`+"\n"...)
}

// stdoutRest handles stdout bytes after the handshake line; outMu held.
func (r *relay) stdoutRest(data []byte) {
	if r.pass.Load() {
		r.releaseFirst()
		_, _ = os.Stdout.Write(append(r.stdoutLine, data...))
		r.stdoutLine = nil
		return
	}
	pending := append(r.stdoutLine, data...)
	for end := bytes.IndexByte(pending, '\n'); end >= 0; end = bytes.IndexByte(pending, '\n') {
		writeErr(r, stdoutLogLine(pending[:end]))
		pending = pending[end+1:]
	}
	r.stdoutLine = append([]byte(nil), pending...)
}

func (r *relay) filtered(f *StreamFilter, chunk []byte) []byte {
	if r.pass.Load() {
		return chunk
	}
	return f.Push(chunk)
}

func (r *relay) stdoutChunk(chunk []byte) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if r.handshaken {
		r.stdoutRest(r.filtered(&r.stdoutF, chunk))
		return
	}
	r.handshake = append(r.handshake, chunk...)
	end := bytes.IndexByte(r.handshake, '\n')
	if end < 0 {
		return
	}
	r.writeFirstLine(r.handshake[:end+1])
	rest := r.handshake[end+1:]
	r.handshake, r.handshaken = nil, true
	if len(rest) > 0 {
		r.stdoutRest(r.filtered(&r.stdoutF, rest))
	}
}

// firstLineHold: how long a start failure's line waits for the provider to end.
const firstLineHold = 500 * time.Millisecond

// startFailurePrefix begins the line the runtime writes in the handshake's place when the provider
// cannot start (runtime/transport/start-failure.ts), after the failure's log line on stderr.
var startFailurePrefix = []byte("harness-tool: the provider cannot start")

// writeFirstLine writes the first stdout line, the handshake, at once; a start failure's line, on
// which the host gives up and kills this process, waits until the provider ended and its pipes
// were drained (finish), or firstLineHold, or pass-through: what the provider wrote on stderr
// before it (the failure's log line, with its stack) is relayed by another goroutine, which could
// otherwise lose that race. outMu held.
func (r *relay) writeFirstLine(line []byte) {
	if !bytes.HasPrefix(line, startFailurePrefix) {
		_, _ = os.Stdout.Write(line)
		return
	}
	r.heldFirst = append([]byte(nil), line...)
	time.AfterFunc(firstLineHold, func() {
		r.outMu.Lock()
		defer r.outMu.Unlock()
		r.releaseFirst()
	})
}

// releaseFirst writes the held first line, once; outMu held.
func (r *relay) releaseFirst() {
	if r.heldFirst != nil {
		_, _ = os.Stdout.Write(r.heldFirst)
		r.heldFirst = nil
	}
}

// pipeReader relays one of the provider's pipes chunk by chunk until EOF or until stopped.
type pipeReader struct {
	file *os.File
	to   func([]byte)
	done chan struct{}
}

func readPipe(file *os.File, to func([]byte)) *pipeReader {
	p := &pipeReader{file: file, to: to, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 64*1024)
		for {
			n, err := file.Read(buf)
			if n > 0 {
				to(append([]byte(nil), buf[:n]...))
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// drainNow stops the reader and relays what the pipe holds at this moment, without waiting for
// more (a child of the provider may hold its write end open); gives up at deadline when the reader
// is stuck writing to a host that does not read.
func (p *pipeReader) drainNow(deadline <-chan struct{}) {
	_ = p.file.SetReadDeadline(time.Now())
	select {
	case <-p.done:
	case <-deadline:
		return
	}
	raw, err := p.file.SyscallConn()
	if err != nil || p.file.SetReadDeadline(time.Time{}) != nil {
		return
	}
	buf := make([]byte, 64*1024)
	_ = raw.Read(func(fd uintptr) bool {
		for {
			n, err := syscall.Read(int(fd), buf)
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 || err != nil {
				return true // empty (EAGAIN), closed, or broken: done either way
			}
			p.to(append([]byte(nil), buf[:n]...))
		}
	})
}

// finish writes what is left once the provider exited: an unfinished handshake, the filters' held
// bytes, a held first line (after them), an unfinished stdout line as a last log line.
func (r *relay) finish() {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if !r.handshaken && len(r.handshake) > 0 {
		_, _ = os.Stdout.Write(r.handshake)
	}
	writeErr(r, r.stderrF.Flush())
	r.releaseFirst()
	if r.pass.Load() {
		if len(r.stdoutLine) > 0 {
			_, _ = os.Stdout.Write(r.stdoutLine)
		}
		return
	}
	rest := r.stdoutF.Flush()
	if len(rest) > 0 || len(r.stdoutLine) > 0 {
		r.stdoutRest(append(rest, '\n'))
	}
}
