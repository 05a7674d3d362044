package cluster

import (
	"context"
	"errors"
	"net"
	"testing"

	protocluster "github.com/asynkron/protoactor-go/cluster"

	"github.com/mcpengine/mcpengine"
)

func TestStartRefusesBadConfigBeforeStartingAnything(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no port":                 {Listen: "127.0.0.1"},
		"no host":                 {Listen: ":7700"},
		"slash in a server":       {Listen: "127.0.0.1:7700", Servers: map[string]mcpengine.ServerConfig{"a/b": {}}},
		"listener for a registry": {Listener: mustListen(t), Provider: ProviderConfig{Registry: stubRegistry{}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Start(t.Context(), cfg)
			if !errors.Is(err, errConfig) {
				t.Fatalf("Start: %v, want a config error", err)
			}
			if cfg.Listener != nil {
				if _, err := cfg.Listener.Accept(); err == nil {
					t.Fatal("Start left the listener it was given open")
				}
			}
		})
	}
}

// A Registry that cannot build its provider fails Start with its own
// error, and the member started nothing (goleak, in TestMain).
func TestStartFailsWithTheRegistrysError(t *testing.T) {
	errDown := errors.New("registry down")
	_, err := Start(t.Context(), Config{Listen: "127.0.0.1:0", Provider: ProviderConfig{Registry: failingRegistry{errDown}}})
	if !errors.Is(err, errDown) {
		t.Fatalf("Start: %v, want the registry's error", err)
	}
}

type failingRegistry struct{ err error }

func (failingRegistry) Name() string { return "failing" }

func (r failingRegistry) ClusterProvider(context.Context) (protocluster.ClusterProvider, error) {
	return nil, r.err
}

// stubRegistry is a Registry Start must refuse before asking it anything.
type stubRegistry struct{}

func (stubRegistry) Name() string { return "stub" }

func (stubRegistry) ClusterProvider(context.Context) (protocluster.ClusterProvider, error) {
	panic("Start asked a registry for a config it refuses")
}

func mustListen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}
