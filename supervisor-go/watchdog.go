package main

import (
	"bufio"
	"fmt"
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

// Watchdog is a running orphan watchdog; the zero value (none could start) does nothing.
type Watchdog struct {
	mu    sync.Mutex
	stdin io.WriteCloser
}

// startWatchdog starts this program again as the watchdog; if it cannot, nothing is watched.
func startWatchdog() *Watchdog {
	self, err := os.Executable()
	if err != nil {
		return &Watchdog{}
	}
	cmd := exec.Command(self, watchdogFlag)
	stdin, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return &Watchdog{}
	}
	// Reaped in the background; its exit never matters to this process.
	go func() { _ = cmd.Wait() }()
	return &Watchdog{stdin: stdin}
}

func (w *Watchdog) send(verb string, id int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stdin != nil {
		_, _ = fmt.Fprintf(w.stdin, "%s %d\n", verb, id)
	}
}

func (w *Watchdog) WatchProcess(pid int)  { w.send("a", pid) }
func (w *Watchdog) ForgetProcess(pid int) { w.send("d", pid) }
func (w *Watchdog) WatchGroup(pgid int)   { w.send("a", -pgid) }
func (w *Watchdog) ForgetGroup(pgid int)  { w.send("d", -pgid) }
