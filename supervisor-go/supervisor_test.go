package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "harness-tool-supervisor-test-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "harness-tool-supervisor")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// run supervises a shell script as the provider; returns its stdout, stderr and exit status.
func run(t *testing.T, script string) (string, string, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(binary, "/bin/sh", "-c", script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the supervisor did not exit within 10 s")
	}
	return stdout.String(), stderr.String(), cmd.ProcessState
}

// learn is the provider's side of Configure: the secret on fd 3, then its answer awaited.
const learn = `printf '{"secrets":["sk-live-7f3a9c2e"]}\n' >&3; read -r answer <&3; `

func TestTheHandshakePassesAndNothingElseReachesStdout(t *testing.T) {
	stdout, stderr, state := run(t, `echo '1|1|tcp|127.0.0.1:1234|grpc'; `+learn+
		`printf 'out sk-live-7f3a9c2e\n'; printf 'err sk-live' >&2; printf '%s\n' -7f3a9c2e >&2; printf 'err2 sk-live' >&2; printf '%s tail\n' -7f3a9c2e >&2; exit 3`)
	if stdout != "1|1|tcp|127.0.0.1:1234|grpc\n" {
		t.Fatalf("stdout %q", stdout)
	}
	if strings.Contains(stderr, "7f3a9c2e") || strings.Count(stderr, "[REDACTED]") != 3 || !strings.Contains(stderr, "err2 [REDACTED] tail\n") {
		t.Fatalf("stderr %q", stderr)
	}
	if code := state.ExitCode(); code != 3 {
		t.Fatalf("exit %d", code)
	}
	var line map[string]string
	first := ""
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, `"stream"`) {
			first = l
		}
	}
	if json.Unmarshal([]byte(first), &line) != nil || line["@message"] != "out [REDACTED]" || line["stream"] != "stdout" || line["@level"] != "info" {
		t.Fatalf("stdout's later line became %q", first)
	}
}

func TestTheMarkerNamesTheSupervisor(t *testing.T) {
	stdout, _, _ := run(t, `echo "$HARNESS_TOOL_SUPERVISED $PPID"`)
	fields := strings.Fields(stdout)
	if len(fields) != 2 || fields[0] != fields[1] {
		t.Fatalf("marker and parent %q", stdout)
	}
}

func TestTheProviderIsToldTheChannelVersion(t *testing.T) {
	// A stale value in the supervisor's own environment (a provider's child that inherited it) is replaced.
	t.Setenv(channelVersionVariable, "0")
	stdout, _, _ := run(t, `echo "$HARNESS_TOOL_SUPERVISOR_CHANNEL"`)
	// 1: runtime/supervisor/supervisor-channel.ts's channelVersion, which the provider requires.
	if stdout != "1\n" {
		t.Fatalf("the provider saw channel version %q", stdout)
	}
}

func TestPassThroughWritesAsItIs(t *testing.T) {
	stdout, stderr, _ := run(t, `echo handshake; `+learn+`printf '{"passThrough":true}\n' >&3; read -r a <&3; echo 'raw sk-live-7f3a9c2e'; echo 'err sk-live-7f3a9c2e' >&2`)
	if stdout != "handshake\nraw sk-live-7f3a9c2e\n" || stderr != "err sk-live-7f3a9c2e\n" {
		t.Fatalf("stdout %q stderr %q", stdout, stderr)
	}
}

func TestASignalledProviderEndsTheSupervisorWithTheSameSignal(t *testing.T) {
	_, _, state := run(t, `echo handshake; kill -s KILL $$`)
	status := state.Sys().(syscall.WaitStatus)
	if !status.Signaled() || status.Signal() != syscall.SIGKILL {
		t.Fatalf("status %v", state)
	}
}

func TestSigtermIsPassedOn(t *testing.T) {
	var stderr bytes.Buffer
	cmd, _ := supervising(t, `trap 'echo got-term >&2; exit 7' TERM; echo ready; while :; do sleep 0.05; done`, &stderr)
	_ = cmd.Process.Signal(syscall.SIGINT) // ignored
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if cmd.ProcessState.ExitCode() != 7 || !strings.Contains(stderr.String(), "got-term") {
		t.Fatalf("status %v stderr %q", cmd.ProcessState, stderr.String())
	}
}

func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	text := string(stat)
	state := text[strings.LastIndexByte(text, ')')+2]
	return state != 'Z' && state != 'X'
}

func TestAKilledSupervisorTakesTheProviderAndTheToolsGroupsWithIt(t *testing.T) {
	// The provider starts a tool in a group of its own (as ctx.spawn does) and tells the supervisor.
	cmd, pids := startReading(t, `setsid sleep 60 & echo "{\"watchGroup\":$!}" >&3; echo "$$ $!"; wait`)
	if len(pids) != 2 {
		t.Fatalf("pids %q", pids)
	}
	time.Sleep(100 * time.Millisecond)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		deadline := time.Now().Add(3 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Fatalf("process %d outlived the SIGKILLed supervisor by 3 s", pid)
		}
	}
}

func TestTheWatchdogEndsOnlyWhatIsStillListed(t *testing.T) {
	kept, ended := exec.Command("sleep", "30"), exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{kept, ended} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = c.Wait() }()
	}
	defer func() { _ = kept.Process.Kill() }()
	lines := "a " + strconv.Itoa(kept.Process.Pid) + "\na " + strconv.Itoa(ended.Process.Pid) + "\nd " + strconv.Itoa(kept.Process.Pid) + "\n"
	runWatchdog(strings.NewReader(lines))
	deadline := time.Now().Add(3 * time.Second)
	for alive(ended.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(ended.Process.Pid) || !alive(kept.Process.Pid) {
		t.Fatalf("ended alive %v, kept alive %v", alive(ended.Process.Pid), alive(kept.Process.Pid))
	}
}

func TestAnAnnouncedExitIsNotWaitedFor(t *testing.T) {
	// The provider writes its last lines, announces 5 and never ends: the supervisor relays the
	// lines, exits with 5 at once and SIGKILLs the provider.
	start := time.Now()
	stdout, stderr, state := run(t, `echo handshake; echo "last $$ sk-live-7f3a9c2e" >&2; `+learn+
		`echo "pid $$" >&2; printf '{"exiting":5}\n' >&3; exec sleep 30`)
	if code := state.ExitCode(); code != 5 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the supervisor waited %v for a provider that announced its exit", took)
	}
	if stdout != "handshake\n" || !strings.Contains(stderr, "last ") {
		t.Fatalf("stdout %q stderr %q", stdout, stderr)
	}
	fields := strings.Fields(stderr[strings.Index(stderr, "pid "):])
	pid, _ := strconv.Atoi(fields[1])
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pid == 0 || alive(pid) {
		t.Fatalf("provider %d outlived its announced exit by 3 s", pid)
	}
}

// children lists the processes whose parent is pid.
func children(t *testing.T, pid int) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		list, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/children")
		out = append(out, strings.Fields(string(list))...)
	}
	return out
}

// supervising starts the supervisor on script (env added to this process's) and returns it with
// the first bytes it wrote on stdout; stderr, when not nil, collects its stderr (nil: none is
// read, so a tool's process that keeps the pipe cannot hold up Wait).
func supervising(t *testing.T, script string, stderr io.Writer, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(binary, "/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 128)
	n, _ := stdout.Read(first)
	return cmd, string(first[:n])
}

// startReading starts the supervisor on script and returns it with the first stdout line's fields.
func startReading(t *testing.T, script string) (*exec.Cmd, []string) {
	t.Helper()
	cmd, first := supervising(t, script, nil)
	return cmd, strings.Fields(first)
}

func goneWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return !alive(pid)
}

func TestAKilledSupervisorWithNoToolGroupsTakesTheProviderWithoutAWatchdog(t *testing.T) {
	if !lazyWatchdog {
		t.Skip("the watchdog starts with the provider where there is no death signal")
	}
	cmd, fields := startReading(t, `echo "$$"; exec sleep 60`)
	pid, _ := strconv.Atoi(fields[0])
	time.Sleep(100 * time.Millisecond)
	if kids := children(t, cmd.Process.Pid); len(kids) != 1 || kids[0] != fields[0] {
		t.Fatalf("the supervisor's children are %v, want only the provider %d (no watchdog)", kids, pid)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// No watchdog, no SIGTERM then SIGKILL a second later: the death signal ends it at once.
	if !goneWithin(pid, 500*time.Millisecond) {
		t.Fatalf("provider %d outlived its SIGKILLed supervisor by 500 ms", pid)
	}
}

func TestTheWatchdogStartsAtTheFirstToolGroup(t *testing.T) {
	if !lazyWatchdog {
		t.Skip("the watchdog starts with the provider where there is no death signal")
	}
	// The provider names its first group a second after it starts: time enough, on a loaded
	// machine, to look at the supervisor's children before.
	cmd, fields := startReading(t, `echo "$$"; sleep 1; setsid sleep 60 & echo "{\"watchGroup\":$!}" >&3; wait`)
	if len(fields) != 1 {
		t.Fatalf("fields %q", fields)
	}
	if kids := children(t, cmd.Process.Pid); len(kids) != 1 {
		t.Fatalf("before any tool group the supervisor's children are %v, want only the provider", kids)
	}
	// The watchdog is forked, then executed: until then its command line is the supervisor's own.
	isWatchdog := func(pid string) bool {
		cmdline, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		return strings.Contains(string(cmdline), watchdogFlag)
	}
	var kids []string
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		kids = children(t, cmd.Process.Pid)
		if len(kids) == 2 && (isWatchdog(kids[0]) || isWatchdog(kids[1])) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(kids) != 2 {
		t.Fatalf("after a tool group the supervisor's children are %v, want the provider and the watchdog", kids)
	}
	for _, k := range kids {
		if k != fields[0] && !isWatchdog(k) {
			cmdline, _ := os.ReadFile("/proc/" + k + "/cmdline")
			t.Fatalf("child %s is %q, not the watchdog", k, cmdline)
		}
	}
	group := 0
	// The group's leader: the provider's only child in a session of its own.
	for _, k := range children(t, mustAtoi(t, fields[0])) {
		group = mustAtoi(t, k)
	}
	if group == 0 {
		t.Fatal("the tool's process was not found")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !goneWithin(group, 3*time.Second) {
		t.Fatalf("the tool's group %d outlived the SIGKILLed supervisor by 3 s", group)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAToolGroupIsAnsweredOnceTheWatchdogHasIt(t *testing.T) {
	// The provider says nothing of its tool before the answer (as the runtime passes on none of a
	// child's output before it); the host kills the supervisor the moment it hears of the tool.
	for round := 0; round < 10; round++ {
		cmd := exec.Command(binary, "/bin/sh", "-c", `setsid sleep 60 & echo "{\"watchGroup\":$!}" >&3; read -r answer <&3; echo "$!"; wait`)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1)
		go func() {
			line := make([]byte, 64)
			n, _ := stdout.Read(line)
			lines <- strings.TrimSpace(string(line[:n]))
		}()
		var group int
		select {
		case line := <-lines:
			group = mustAtoi(t, line)
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the supervisor did not answer watchGroup within 5 s")
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if !goneWithin(group, 3*time.Second) {
			_ = syscall.Kill(-group, syscall.SIGKILL)
			t.Fatalf("round %d: the tool's group %d outlived the supervisor killed on the answer by 3 s", round, group)
		}
	}
}

// killedOnTheFirstLine supervises script and kills the supervisor the moment its first stdout bytes
// arrive, as go-plugin's host does on a start failure's line; returns those bytes and the stderr
// the host had by then.
func killedOnTheFirstLine(t *testing.T, script string, env ...string) (string, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd, line := supervising(t, script, &stderr, env...)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !strings.HasPrefix(line, "harness-tool: the provider cannot start") {
		t.Fatalf("stdout %q", line)
	}
	return line, stderr.String()
}

func TestAStartFailuresStderrReachesTheHostBeforeItsStdoutLine(t *testing.T) {
	// The runtime reports a start failure on stderr (its log line, with the stack), then in the
	// handshake's place on stdout; the host kills this process the moment it reads that line.
	payload := strings.Repeat("x", 60_000)
	for round := 0; round < 20; round++ {
		_, stderr := killedOnTheFirstLine(t, `printf '%s end-of-stderr\n' "$PAYLOAD" >&2; echo 'harness-tool: the provider cannot start: broken'; exit 1`, "PAYLOAD="+payload)
		if !strings.Contains(stderr, "end-of-stderr") {
			t.Fatalf("round %d: killed on the stdout line, the host had %d bytes of the provider's stderr, not its end", round, len(stderr))
		}
	}
}

func TestAStartFailuresLineWaitsForStderrWrittenAfterIt(t *testing.T) {
	// The line is held until the provider ended, not just until the stderr already written is out.
	line, stderr := killedOnTheFirstLine(t, `echo 'harness-tool: the provider cannot start: broken'; sleep 0.05; echo late-stderr >&2; exit 1`)
	if !strings.Contains(stderr, "late-stderr") {
		t.Fatalf("killed on the stdout line %q, the host had stderr %q", line, stderr)
	}
}

func TestOnlyAStartFailuresLineIsHeld(t *testing.T) {
	// Neither provider ends: a handshake (or any other first line) goes out at once, a start
	// failure's line after firstLineHold.
	firstLineAfter := func(line string) time.Duration {
		started := time.Now()
		cmd, got := supervising(t, "echo '"+line+"'; exec sleep 30", nil)
		took := time.Since(started)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if got != line+"\n" {
			t.Fatalf("stdout %q, want %q", got, line)
		}
		return took
	}
	handshake := firstLineAfter("1|1|unix|/tmp/plugin1|grpc")
	failure := firstLineAfter("harness-tool: the provider cannot start: broken")
	if failure < firstLineHold*9/10 || handshake >= failure {
		t.Fatalf("the handshake came after %s, the start failure after %s: want the failure held about %s, the handshake not", handshake, failure, firstLineHold)
	}
}
