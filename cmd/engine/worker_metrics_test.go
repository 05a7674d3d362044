package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// metricsURL is where the worker said it serves /metrics.
func (w *worker) metricsURL(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(w.p.stderrText(), "\n") {
		if _, url, ok := strings.Cut(line, "prometheus metrics at "); ok {
			return strings.TrimSpace(url)
		}
	}
	t.Fatalf("no prometheus line on the worker's stderr:\n%s", w.p.stderrText())
	return ""
}

// promSum adds up the samples of metric in a Prometheus text scrape
// whose labels contain every one of labels.
func promSum(body, metric string, labels ...string) int64 {
	var sum int64
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, metric+"{") && !strings.HasPrefix(line, metric+" ") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum += int64(v)
		}
	}
	return sum
}

// engine worker --prometheus serves the member's cluster metrics: the
// members it sees, the sessions it holds, the calls made through it by
// where the session lived, and, once a worker is stopped, the sessions it
// moved away and the survivor activated in its place.
func TestWorkerServesClusterMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two workers")
	}
	demo := startServe(t, "http")
	ws := startWorkers(t, 2, map[string]any{"demo": map[string]any{"url": demo.url}}, "--prometheus", "127.0.0.1:0")
	urls := []string{ws[0].metricsURL(t), ws[1].metricsURL(t)}
	scrape := func(i int) string {
		return scrapeMetrics(strings.TrimSuffix(strings.TrimPrefix(urls[i], "http://"), "/metrics"))
	}
	eventually(t, time.Minute, "two members in both workers' metrics", func() (bool, any) {
		for i := range ws {
			if b := scrape(i); promSum(b, "mcpengine_cluster_members") != 2 {
				return false, b
			}
		}
		return true, nil
	})

	ctx := t.Context()
	const n = 20
	for i := range n {
		a, err := ws[0].call(ctx, fmt.Sprint("p", i), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
		require.NoError(t, err)
		require.Nil(t, a.Error, "p%d", i)
	}
	held := owned(t, ws)
	first := scrape(0)
	require.EqualValues(t, n, promSum(first, "mcpengine_cluster_calls_total"), first)
	require.EqualValues(t, len(held[0].Sessions), promSum(first, "mcpengine_cluster_calls_total", `mcpengine_cluster_owner="local"`), first)
	for i := range ws {
		b := scrape(i)
		require.EqualValues(t, len(held[i].Sessions), promSum(b, "mcpengine_cluster_sessions"), b)
		require.EqualValues(t, len(held[i].Sessions), promSum(b, "mcpengine_cluster_session_activations_total", `mcpengine_cluster_activation="placed"`), b)
	}
	moved := len(held[1].Sessions)
	require.NotZero(t, moved, "the stopping worker holds no session")

	require.NoError(t, ws[1].p.cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 0, ws[1].p.exitCode(t), ws[1].p.stderrText())
	eventually(t, 30*time.Second, "the survivor holds every session and counted the moved ones", func() (bool, any) {
		b := scrape(0)
		movedIn := promSum(b, "mcpengine_cluster_session_activations_total", `mcpengine_cluster_activation="handover"`) +
			promSum(b, "mcpengine_cluster_session_activations_total", `mcpengine_cluster_activation="owner_left"`)
		return promSum(b, "mcpengine_cluster_members") == 1 && promSum(b, "mcpengine_cluster_sessions") == n &&
			movedIn == int64(moved), b
	})
}

// A worker killed without a goodbye: the survivor, once its topology
// dropped the dead one, re-activates the dead one's sessions as they are
// called and counts them as activated because their owner left.
func TestWorkerCountsSessionsWhoseOwnerDied(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two workers")
	}
	demo := startServe(t, "http")
	ws := startWorkers(t, 2, map[string]any{"demo": map[string]any{"url": demo.url}}, "--prometheus", "127.0.0.1:0")
	url := ws[0].metricsURL(t)
	scrape := func() string {
		return scrapeMetrics(strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics"))
	}
	eventually(t, time.Minute, "two members", func() (bool, any) {
		b := scrape()
		return promSum(b, "mcpengine_cluster_members") == 2, b
	})
	ctx := t.Context()
	const n = 20
	echo := map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}
	for i := range n {
		a, err := ws[0].call(ctx, fmt.Sprint("k", i), "tools/call", echo)
		require.NoError(t, err)
		require.Nil(t, a.Error, "k%d", i)
	}
	dead := len(owned(t, ws)[1].Sessions)
	require.NotZero(t, dead, "the killed worker holds no session")

	require.NoError(t, ws[1].p.cmd.Process.Signal(syscall.SIGKILL))
	eventually(t, 30*time.Second, "the survivor's topology drops the dead worker", func() (bool, any) {
		b := scrape()
		return promSum(b, "mcpengine_cluster_members") == 1, b
	})
	for i := range n {
		eventually(t, 30*time.Second, "every session answers from the survivor", func() (bool, any) {
			a, err := ws[0].call(ctx, fmt.Sprint("k", i), "tools/call", echo)
			return err == nil && a.Error == nil, fmt.Sprint(a.Error, err)
		})
	}
	b := scrape()
	require.EqualValues(t, n, promSum(b, "mcpengine_cluster_sessions"), b)
	require.EqualValues(t, dead, promSum(b, "mcpengine_cluster_session_activations_total", `mcpengine_cluster_activation="owner_left"`), b)
	require.EqualValues(t, n-dead, promSum(b, "mcpengine_cluster_session_activations_total", `mcpengine_cluster_activation="placed"`), b)
}
