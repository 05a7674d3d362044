package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// etcdBin finds the etcd server (Debian's etcd-server package, which
// .ci/run installs). Without it the test skips, except in CI
// (CI=true), where a missing etcd is a failure, not a pass.
func etcdBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("etcd not found in CI (.ci/run installs Debian's etcd-server): %v", err)
		}
		t.Skipf("etcd not found (apt-get install etcd-server): %v", err)
	}
	return bin
}

// lockedBuffer is an io.Writer a process writes to while the test reads.
type lockedBuffer = testkit.LockedBuffer

// startEtcd starts a single-node etcd on free loopback ports with its
// data in a temporary directory, waits until it is healthy and returns
// its client endpoint. Cleanup kills it.
func startEtcd(t *testing.T) string {
	t.Helper()
	bin := etcdBin(t)
	ports := freePorts(t, 2)
	client, peer := "http://"+ports[0], "http://"+ports[1]
	var out lockedBuffer
	cmd := exec.Command(bin, "--name", "test", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "test="+peer, "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	// Owner: the test; exits when etcd does (cleanup kills it).
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("etcd's output:\n%s", out.String())
		}
	})
	eventually(t, 30*time.Second, "etcd healthy", func() (bool, any) {
		select {
		case <-exited:
			t.Fatalf("etcd exited: %s", out.String())
		default:
		}
		resp, err := http.Get(client + "/health")
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	return ports[0]
}

// Three engine worker processes find each other through a real etcd
// (--provider etcd, as docs/cluster/etcd/README.md runs them): membership
// converges, named sessions are placed once, and when one worker is
// SIGKILLed (its lease is not renewed, so etcd drops its key) every
// session it held comes back on a survivor.
func TestEtcdWorkersPlaceSessionsAndSurviveAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and three workers")
	}
	endpoint := startEtcd(t)
	demo := startServe(t, "http")
	cfg := writeServers(t, map[string]any{"demo": map[string]any{"url": demo.url}})
	ws := make([]*worker, 3)
	for i := range ws {
		// --listen with port 0: the provider registers the port the
		// actor remote bound.
		ws[i] = startWorker(t, "--provider", "etcd", "--etcd-endpoints", endpoint, "--etcd-base-key", "/"+t.Name(),
			"--listen", "127.0.0.1:0", "--config", cfg, "--cluster", "etcdtest")
	}
	// The budget: etcd drops the dead member's key when its lease (3 s,
	// protoactor's) runs out, the survivors' watch sees the deletion, a
	// lookup that asked the dead owner first gives up after 1 s, then
	// each session connects again. About 4 s on a quiet machine.
	sessionsComeBackAfterAKill(t, ws, 60, 20*time.Second)
}

// A worker given an etcd that does not answer says so and exits (1)
// within the dial timeout, rather than waiting for it in silence.
func TestEtcdWorkerWithoutEtcdExits(t *testing.T) {
	dead := freePorts(t, 1)[0] // free a moment ago: nothing answers there
	r := engine(t, "", "worker", "--provider", "etcd", "--etcd-endpoints", dead, "--listen", "127.0.0.1:0")
	assert.Equal(t, 1, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, fmt.Sprintf("etcd did not answer at %s", dead))
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line, no client log: %s", r.stderr)
}
