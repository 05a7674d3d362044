// Package loadgen drives concurrent MCP calls through an mcpengine.Engine
// and measures them: per-worker HDR latency histograms merged at the end,
// outcome counts by class, and per-session connect times measured apart
// from the calls. It prints nothing; the CLI's load command formats the
// Result.
package loadgen
