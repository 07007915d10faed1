// Command harness-tool-supervisor is a candidate for the supervisor of docs/runtime.md#the-supervisor
// that is not a Node process: `harness-tool-supervisor <node> [args...]` starts the provider with
// fds 1 and 2 as pipes it filters, fd 3 as the private channel (secrets, the tools' process groups,
// pass-through), the marker HARNESS_TOOL_SUPERVISED=<its pid> with the channel's version
// HARNESS_TOOL_SUPERVISOR_CHANNEL=<n> beside it, and stdin inherited; it forwards
// SIGTERM and SIGHUP, ignores SIGINT, passes the host's going away on as SIGTERM, has the provider
// die with it (Linux's death signal) and starts the orphan watchdog (this program again, with
// --orphan-watchdog; on Linux only once a tool's process group is listed), and exits with the
// provider's status (or the same signal), or at once with the code the provider announced on fd 3.
package main

import (
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	supervisedVariable = "HARNESS_TOOL_SUPERVISED"
	// channelVersionVariable carries the channel version this program speaks (channel.go), which the
	// provider checks before it relies on an answer (runtime/supervisor/supervisor-channel.ts,
	// channelVersion: the same number).
	channelVersionVariable = "HARNESS_TOOL_SUPERVISOR_CHANNEL"
	channelVersion         = "1"
	// parentPoll: how often the parent pid is checked (the host gone without closing anything).
	parentPoll = 500 * time.Millisecond
	// drainTime: after the provider exited, how long its pipes may still take to drain.
	drainTime = 200 * time.Millisecond
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == watchdogFlag {
		os.Exit(runWatchdog(os.Stdin))
	}
	if len(os.Args) < 2 {
		_, _ = os.Stderr.WriteString("harness-tool-supervisor: no program to supervise (run harness-tool-supervisor <program> [args...])\n")
		os.Exit(2)
	}
	os.Exit(supervise(os.Args[1], os.Args[2:]))
}

// environment is this process's environment with the marker naming it and the channel's version.
func environment() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, supervisedVariable+"=") && !strings.HasPrefix(kv, channelVersionVariable+"=") {
			env = append(env, kv)
		}
	}
	return append(env, supervisedVariable+"="+strconv.Itoa(os.Getpid()), channelVersionVariable+"="+channelVersion)
}

// startFailed reports a provider that could not start where go-plugin shows it: in the handshake's place.
func startFailed(err error) int {
	_, _ = os.Stdout.WriteString("harness-tool: the provider cannot start: its supervisor could not start it: " + err.Error() + "\n")
	return 1
}

// supervise runs program under the supervisor; returns the exit code (or re-raises its signal).
func supervise(program string, args []string) int {
	// A broken fd 1 or 2 drops the write instead of ending this process (the provider goes on).
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGPIPE)

	pair, err := channelPair()
	if err != nil {
		return startFailed(err)
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "channel"), os.NewFile(uintptr(pair[1]), "channel-provider")
	stdoutRead, stdoutWrite, err := os.Pipe()
	if err != nil {
		return startFailed(err)
	}
	stderrRead, stderrWrite, err := os.Pipe()
	if err != nil {
		return startFailed(err)
	}
	cmd := exec.Command(program, args...)
	cmd.Env = environment()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdoutWrite, stderrWrite
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = providerAttributes()
	if err := cmd.Start(); err != nil {
		return startFailed(err)
	}
	_ = stdoutWrite.Close()
	_ = stderrWrite.Close()
	_ = theirs.Close()

	watchdog := newWatchdog(lazyWatchdog)
	watchdog.WatchProcess(cmd.Process.Pid)
	relay := newRelay(watchdog)
	pipes := []*pipeReader{
		readPipe(stdoutRead, relay.stdoutChunk),
		readPipe(stderrRead, func(chunk []byte) { writeErr(relay, relay.filtered(&relay.stderrF, chunk)) }),
	}
	go serveChannel(ours, relay)
	go forwardSignals(signals, cmd.Process)
	go watchParent(cmd.Process)

	waited := make(chan *os.ProcessState, 1)
	go func() { state, _ := cmd.Process.Wait(); waited <- state }()
	select {
	case state := <-waited:
		watchdog.ForgetProcess(cmd.Process.Pid)
		deadline := after(drainTime)
		for _, pipe := range pipes {
			select {
			case <-pipe.done:
			case <-deadline:
			}
		}
		relay.finish()
		return exitLike(state)
	case code := <-relay.exits:
		// The provider's last exit listener ran: what it wrote before is in the pipes, and only
		// its teardown (tens of ms for a Node heap) is left, which the host need not wait for.
		_ = cmd.Process.Kill()
		watchdog.ForgetProcess(cmd.Process.Pid)
		deadline := after(drainTime)
		for _, pipe := range pipes {
			pipe.drainNow(deadline)
		}
		relay.finish()
		return code
	}
}

// after is a channel closed once d has passed (read by as many selects as need it).
func after(d time.Duration) <-chan struct{} {
	expired := make(chan struct{})
	time.AfterFunc(d, func() { close(expired) })
	return expired
}

// channelPair is the fd 3 socket pair, close-on-exec (set under ForkLock: darwin has no SOCK_CLOEXEC).
func channelPair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(pair[0])
		syscall.CloseOnExec(pair[1])
	}
	return pair, err
}

// forwardSignals passes SIGTERM and SIGHUP on; SIGINT (a Ctrl-C in the host's terminal) and SIGPIPE are ignored.
func forwardSignals(signals <-chan os.Signal, provider *os.Process) {
	for sig := range signals {
		if sig == syscall.SIGTERM || sig == syscall.SIGHUP {
			_ = provider.Signal(sig)
		}
	}
}

// watchParent passes the host's going away (a new parent) on as SIGTERM.
func watchParent(provider *os.Process) {
	parent := os.Getppid()
	for range time.Tick(parentPoll) {
		if os.Getppid() != parent {
			_ = provider.Signal(syscall.SIGTERM)
		}
	}
}

// exitLike ends this process the way the provider ended: the same signal, or its exit code.
func exitLike(state *os.ProcessState) int {
	if state == nil {
		return 1
	}
	if status, ok := state.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		sig := status.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second)
		return 128 + int(sig)
	}
	return state.ExitCode()
}
