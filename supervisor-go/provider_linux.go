package main

import "syscall"

// providerAttributes: the kernel SIGKILLs the provider when this process dies, SIGKILL included
// (PR_SET_PDEATHSIG). Go's fork sets it in the child and, if this process is already gone by then,
// signals the child itself (the already-orphaned race). The signal follows the thread that forked:
// this program never runs a goroutine under runtime.LockOSThread, so no thread of it exits early.
func providerAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// lazyWatchdog: the provider needs no watchdog (its death signal covers it), so the watchdog starts
// only when the provider first lists a tool's process group.
const lazyWatchdog = true
