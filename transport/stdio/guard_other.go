//go:build !linux

package stdio

import "syscall"

// applyGuard: off Linux there is neither a parent-death signal nor a
// subreaper; Close's process group signals are the only guard.
func applyGuard(_ *syscall.SysProcAttr, env []string) ([]string, string) { return env, "" }

func descendants(int) map[int]string { return nil }

func killEscaped(int, map[int]string, string) {}
