package httpserve

import (
	"net"
	"net/http"
	"strings"
)

// IsLoopbackHost reports whether host (no port; brackets allowed) is
// "localhost" or a loopback IP address. Other names are not looked up:
// DNS must not decide what counts as local.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackAddr reports whether a listen address (host:port) binds only
// the loopback interface. An empty host (":8080") binds every interface.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && IsLoopbackHost(host)
}

// LoopbackPeer reports whether the request came from this host.
func LoopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
