package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// watchdogFlag runs this program as the orphan watchdog (the same contract as the Node supervisor's
// runtime/supervisor/orphan-watchdog.ts, in this binary instead of /bin/sh): "a <id>" adds a pid (or
// -pgid) to end, "d <id>" drops it; at EOF on stdin (the supervisor gone, SIGKILL included) it sends
// SIGTERM to those listed, waits killGrace, sends SIGKILL and exits.
const watchdogFlag = "--orphan-watchdog"

// killGrace is the time between the watchdog's SIGTERM and SIGKILL.
const killGrace = time.Second

// runWatchdog is the watchdog process's whole life.
func runWatchdog(commands io.Reader) int {
	// A Ctrl-C in the host's terminal reaches the whole group; the host shuts the provider down itself.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP)
	live := map[int]bool{}
	lines := bufio.NewScanner(commands)
	for lines.Scan() {
		verb, id, found := strings.Cut(lines.Text(), " ")
		target, err := strconv.Atoi(id)
		if !found || err != nil || target == 0 {
			continue
		}
		switch verb {
		case "a":
			live[target] = true
		case "d":
			delete(live, target)
		}
	}
	if len(live) == 0 {
		return 0
	}
	for target := range live {
		_ = syscall.Kill(target, syscall.SIGTERM)
	}
	time.Sleep(killGrace)
	for target := range live {
		_ = syscall.Kill(target, syscall.SIGKILL)
	}
	return 0
}

// Watchdog is the orphan watchdog of one provider: started with it, or (lazy) at the first tool
// group listed, when it is told the provider's pid too. Not started (or unable to start), it does nothing.
type Watchdog struct {
	mu       sync.Mutex
	lazy     bool
	started  bool
	stdin    io.WriteCloser
	provider int // the provider's pid while it runs, 0 after
}

// newWatchdog starts the watchdog now, or (lazy) leaves it for the first tool group.
func newWatchdog(lazy bool) *Watchdog {
	w := &Watchdog{lazy: lazy}
	if !lazy {
		w.start()
	}
	return w
}

// start runs this program again as the watchdog, once; if it cannot, nothing is watched. mu held (or not yet shared).
func (w *Watchdog) start() {
	if w.started {
		return
	}
	w.started = true
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, watchdogFlag)
	stdin, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return
	}
	// Reaped in the background; its exit never matters to this process.
	go func() { _ = cmd.Wait() }()
	w.stdin = stdin
}

// send writes one line; mu held.
func (w *Watchdog) send(verb string, id int) {
	if w.stdin != nil {
		_, _ = io.WriteString(w.stdin, verb+" "+strconv.Itoa(id)+"\n")
	}
}

// Started says whether a watchdog process was started.
func (w *Watchdog) Started() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stdin != nil
}

func (w *Watchdog) WatchProcess(pid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.provider = pid
	w.send("a", pid)
}

func (w *Watchdog) ForgetProcess(pid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.provider == pid {
		w.provider = 0
	}
	w.send("d", pid)
}

// WatchGroup lists a tool's group, starting a lazy watchdog first (told the provider's pid too).
func (w *Watchdog) WatchGroup(pgid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lazy && !w.started {
		w.start()
		if w.provider != 0 {
			w.send("a", w.provider)
		}
	}
	w.send("a", -pgid)
}

func (w *Watchdog) ForgetGroup(pgid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.send("d", -pgid)
}
