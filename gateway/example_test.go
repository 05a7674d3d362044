package gateway_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
)

// A platform embeds the gateway: servers and policies in Go, the handler
// on its own mux, behind its own middleware.
func ExampleNew() {
	ctx := context.Background()
	g, err := gateway.New(ctx, gateway.Config{
		Servers: map[string]gateway.Server{
			"files": {
				Target: mcpengine.ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"}},
				Pool:   2,
				Policy: gateway.Policy{Tools: gateway.Rules{Deny: []string{"write_*", "move_*"}}},
			},
			"search": {
				Target: mcpengine.ServerConfig{URL: "https://search.example/mcp", Auth: &mcpengine.AuthConfig{Bearer: os.Getenv("SEARCH_TOKEN")}},
				Policy: gateway.Policy{RateLimit: &gateway.RateLimit{PerSecond: 5, Burst: 10}},
			},
		},
		Clients: []gateway.Client{{
			Name:   "agent-7",
			Token:  os.Getenv("AGENT_7_TOKEN"),
			Policy: gateway.Policy{MaxToolTime: 30 * time.Second},
		}},
		Audit: gateway.Audit{Writer: os.Stderr},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = g.Close(ctx)
	}()

	mux := http.NewServeMux()
	mux.Handle("/mcp", g.Handler())     // the aggregated MCP endpoint
	mux.Handle("/rpc", g.Handler())     // the routing protocol
	mux.Handle("/healthz", g.Handler()) // upstream session states
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}

// The same from a file: an mcpServers document with a "gateway" section.
func ExampleLoadConfig() {
	cfg, err := gateway.LoadConfig("mcp.json")
	if err != nil {
		log.Fatal(err)
	}
	g, err := gateway.New(context.Background(), *cfg)
	if err != nil {
		log.Fatal(err)
	}
	hs, err := g.Listen("127.0.0.1:8080", gateway.ListenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("MCP endpoint at %s, routing at %s", hs.MCPURL(), hs.RouteURL())
}
