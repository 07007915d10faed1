// Command standin is a stand-in for harness-tool's supervisor that is not a Node process, for
// bench/fast-start.ts (--standin): it starts its arguments as a child, copies the child's stdout
// and stderr through pipes to its own (where the real supervisor filters secrets; this one does
// not), forwards SIGTERM, SIGINT and SIGHUP, dies with its parent (PR_SET_PDEATHSIG on the child
// means the child dies with it) and exits with the child's status. Figures only: no design uses it.
package main

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: standin <command> [args...]\n")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin = os.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		os.Exit(1)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("standin: " + err.Error() + "\n")
		os.Exit(1)
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	var copying sync.WaitGroup
	copying.Add(2)
	go func() { defer copying.Done(); _, _ = io.Copy(os.Stdout, stdout) }()
	go func() { defer copying.Done(); _, _ = io.Copy(os.Stderr, stderr) }()
	copying.Wait()
	if err := cmd.Wait(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			os.Exit(exit.ExitCode())
		}
		os.Exit(1)
	}
}
