package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

func newPingCmd() *cobra.Command {
	var f targetFlags
	cmd := &cobra.Command{
		Use:   "ping",
		Short: "Connect to the server, ping it and print who answered",
		Long: `Connect to the server (start it and negotiate the protocol: server/discover
in 2026-07-28, falling back to the initialize handshake of the older
versions), send one ping and print the server's name and version, the
protocol era and version negotiated, the connect time and the ping's round
trip. The stateless era (2026-07-28) has no ping: its round trip is a
server/discover.`,
		Example: `  engine ping
  engine ping --stdio "npx -y @modelcontextprotocol/server-everything" --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer c.close()
			start := time.Now()
			if err := c.s.Ping(cmd.Context(), c.opts...); err != nil {
				method := messages.MethodPing
				if c.s.Era() == mcpengine.EraModern {
					method = messages.MethodServerDiscover
				}
				return requestError(method, err)
			}
			rtt := time.Since(start)
			info := c.s.ServerInfo()
			w := cmd.OutOrStdout()
			if f.json {
				return printJSON(w, pingJSON{
					OK: true, Server: info, ProtocolVersion: c.s.ProtocolVersion(), Era: c.s.Era(),
					ConnectUs: c.connect.Microseconds(), PingUs: rtt.Microseconds(),
				})
			}
			fmt.Fprintf(w, "pong from %s %s (protocol %s, %s era): ping %s, connect %s\n",
				orDash(info.Name), info.Version, c.s.ProtocolVersion(), c.s.Era(), fmtDuration(rtt), fmtDuration(c.connect))
			return nil
		},
	}
	f.register(cmd.Flags())
	return cmd
}

type pingJSON struct {
	OK              bool                    `json:"ok"`
	Server          messages.Implementation `json:"server"`
	ProtocolVersion string                  `json:"protocolVersion"`
	Era             string                  `json:"era"` // "modern" (2026-07-28 on) or "legacy"
	ConnectUs       int64                   `json:"connect_us"`
	PingUs          int64                   `json:"ping_us"`
}
