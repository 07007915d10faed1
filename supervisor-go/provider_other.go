//go:build !linux

package main

import "syscall"

// providerAttributes: no death signal outside Linux (darwin has none); the watchdog covers the provider.
func providerAttributes() *syscall.SysProcAttr { return nil }

// lazyWatchdog: the watchdog starts with the provider, to end it if this process is SIGKILLed.
const lazyWatchdog = false
