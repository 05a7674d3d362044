package h2stream

import (
	"net/url"
	"testing"
)

// URLs naming one origin share a key; the engine's own URLs (a port, lower
// case) are their own key, with no allocation per request.
func TestOriginKeys(t *testing.T) {
	key := func(raw string) originKey {
		t.Helper()
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		k, err := originOf(u)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, same := range [][]string{
		{"http://example.com/mcp", "http://Example.COM:80/x", "http://example.com:80"},
		{"https://example.com/mcp", "https://EXAMPLE.com:443/", "HTTPS://example.com"},
		{"http://[::1]:8080/mcp", "http://[::1]:8080"},
	} {
		for _, raw := range same[1:] {
			if a, b := key(same[0]), key(raw); a != b {
				t.Errorf("%s → %+v but %s → %+v", same[0], a, raw, b)
			}
		}
	}
	if key("http://example.com:443") == key("https://example.com:443") {
		t.Error("http and https share a key")
	}
	if _, err := originOf(&url.URL{Scheme: "ftp", Host: "x"}); err == nil {
		t.Error("an ftp URL got a key")
	}
	u, _ := url.Parse("http://127.0.0.1:8080/mcp")
	if n := testing.AllocsPerRun(100, func() { _, _ = originOf(u) }); n != 0 {
		t.Errorf("originOf allocates %v times for a lower-case URL with a port", n)
	}
}
