// Package soak holds the long-running leak check of the engine (make soak
// DURATION=10m): many sessions making calls and reconnecting for the
// whole duration, the process sampled at a fixed period, and a failure
// when a resource grows along the run rather than levelling off. It has
// tests only.
package soak
