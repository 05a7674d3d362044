package httpx

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/net/http2"
)

// firstFrame is what a server sends first, framed by net's own framer.
func firstFrame(t *testing.T, write func(*http2.Framer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(http2.NewFramer(&b, nil)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFirstFrameVerdict(t *testing.T) {
	settings := func(s ...http2.Setting) []byte {
		return firstFrame(t, func(f *http2.Framer) error { return f.WriteSettings(s...) })
	}
	for _, tc := range []struct {
		name   string
		b      []byte
		reason string
	}{
		{"an HTTP/1.1 status line", []byte("HTTP/1.1 400 Bad Request\r\n"), reasonHTTP1},
		{"SETTINGS allowing no stream", settings(http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 14}, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 0}), reasonNoStreams},
		{"SETTINGS allowing streams", settings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}), ""},
		{"empty SETTINGS", settings(), ""},
		{"a SETTINGS ack", firstFrame(t, func(f *http2.Framer) error { return f.WriteSettingsAck() }), ""},
		{"a TLS record", []byte{0x16, 0x03, 0x03, 0x04, 0x00, 0x02, 0x00, 0x00, 0x46}, ""},
		{"a frame that is no SETTINGS", firstFrame(t, func(f *http2.Framer) error { return f.WriteGoAway(0, http2.ErrCodeProtocol, nil) }), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, decided := firstFrameVerdict(tc.b)
			assert.True(t, decided)
			assert.Equal(t, tc.reason, reason)
			// Byte by byte, as a slow server sends it: undecided until the
			// verdict's last byte, then the same verdict.
			for i := 1; i < len(tc.b); i++ {
				if r, d := firstFrameVerdict(tc.b[:i]); d {
					assert.Equal(t, tc.reason, r, "decided early at byte %d", i)
					return
				}
			}
		})
	}
}
