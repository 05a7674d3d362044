package cluster

import (
	"errors"
	"net"
	"testing"

	"github.com/mcpengine/mcpengine"
)

func TestStartRefusesBadConfigBeforeStartingAnything(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no port":             {Listen: "127.0.0.1"},
		"no host":             {Listen: ":7700"},
		"unknown provider":    {Listen: "127.0.0.1:7700", Provider: ProviderConfig{Kind: "zookeeper"}},
		"slash in a server":   {Listen: "127.0.0.1:7700", Servers: map[string]mcpengine.ServerConfig{"a/b": {}}},
		"listener for consul": {Listener: mustListen(t), Provider: ProviderConfig{Kind: ProviderConsul}},
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

func mustListen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}
