package main

import (
	"fmt"
	"io"
	"os/exec"
	"sync"
)

// watchdogScript is the orphan watchdog's loop, the same contract as the Node supervisor's
// (runtime/supervisor/orphan-watchdog.ts): "a <id>" adds a pid (or -pgid) to end, "d <id>" drops
// it; at EOF on stdin (this process gone, SIGKILL included) it sends SIGTERM to those listed,
// waits a second, sends SIGKILL and exits.
const watchdogScript = `trap '' INT HUP
live=" "
while IFS= read -r line; do
  id=${line#? }
  case $line in
    "a "*) live="$live$id " ;;
    "d "*) case $live in *" $id "*) live="${live%%" $id "*} ${live#*" $id "}" ;; esac ;;
  esac
done
[ "$live" = " " ] && exit 0
for id in $live; do kill -s TERM -- "$id" 2>/dev/null; done
sleep 1
for id in $live; do kill -s KILL -- "$id" 2>/dev/null; done
exit 0`

// Watchdog is a running orphan watchdog; the zero value (none could start) does nothing.
type Watchdog struct {
	mu    sync.Mutex
	stdin io.WriteCloser
}

// startWatchdog starts /bin/sh with the loop; without /bin/sh nothing is watched.
func startWatchdog() *Watchdog {
	cmd := exec.Command("/bin/sh", "-c", watchdogScript)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return &Watchdog{}
	}
	if cmd.Start() != nil {
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
