package messages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initializeParamsVariant builds InitializeParams from fuzzed choices:
// every capability and client info member present or not.
func initializeParamsVariant(bits uint16, version, name, text string) *InitializeParams {
	p := &InitializeParams{ProtocolVersion: version, ClientInfo: Implementation{Name: name, Version: text}}
	c := &p.Capabilities
	if bits&1 != 0 {
		c.Roots = &RootsCapability{ListChanged: bits&2 != 0}
	}
	if bits&4 != 0 {
		c.Sampling = &SamplingCapability{}
		if bits&8 != 0 {
			c.Sampling.Context = &SamplingContextCapability{}
		}
		if bits&16 != 0 {
			c.Sampling.Tools = &SamplingToolsCapability{}
		}
	}
	if bits&32 != 0 {
		c.Elicitation = &ElicitationCapability{}
		if bits&64 != 0 {
			c.Elicitation.Form = &ElicitationFormCapability{}
		}
		if bits&128 != 0 {
			c.Elicitation.URL = &ElicitationURLCapability{}
		}
	}
	if bits&256 != 0 {
		p.ClientInfo.Title = text
	}
	if bits&512 != 0 {
		p.ClientInfo.Description = name
	}
	if bits&1024 != 0 {
		p.ClientInfo.WebsiteURL = "https://example.com/" + text
	}
	if bits&2048 != 0 {
		c.Experimental = map[string]any{"x": 1}
	}
	if bits&4096 != 0 {
		c.Tasks = &TasksCapability{List: &EmptyCapability{}}
	}
	if bits&8192 != 0 {
		p.ClientInfo.Icons = []Icon{{Src: "data:x"}}
	}
	if bits&16384 != 0 {
		p.Meta = map[string]any{"k": "v"}
	}
	return p
}

// Every combination of members, with plain strings and with strings only
// sonic writes: MarshalOnce gives Marshal's bytes.
func TestMarshalOnceMatchesMarshal(t *testing.T) {
	strs := [][3]string{
		{"2025-11-25", "mcpengine", "0.1.0"},
		{"", "", ""},
		{"2025-06-18", "naïve", "1"},
		{"v", "a\"b\\c", "tab\there"},
		{"v", "bad \xff utf8", "<&> \u2028"},
	}
	// Every combination of the members appended by hand, then each member
	// left to sonic on top of all of them.
	var variants []uint16
	for bits := range uint16(1 << 11) {
		if bits&3 == 2 || bits&(8|16) != 0 && bits&4 == 0 || bits&(64|128) != 0 && bits&32 == 0 {
			continue // flags of an absent capability
		}
		variants = append(variants, bits)
	}
	for bit := uint16(1 << 11); bit != 0; bit <<= 1 {
		variants = append(variants, bit|0x7ff)
	}
	for _, bits := range variants {
		for _, s := range strs {
			p := initializeParamsVariant(bits, s[0], s[1], s[2])
			want, err := Marshal(p)
			require.NoError(t, err)
			got, err := MarshalOnce(p)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "bits %b, strings %q", bits, s)
		}
	}
}

// The engine's own initialize is the one appended by hand.
func TestMarshalOnceAppendsTheEnginesInitialize(t *testing.T) {
	p := initializeParamsVariant(1|4|8|16|32|64|128|256, "2025-11-25", "mcpengine", "0.1.0")
	_, ok := appendInitializeParams(nil, p)
	assert.True(t, ok)
	got, err := MarshalOnce(&DiscoverParams{})
	require.NoError(t, err)
	want, err := Marshal(&DiscoverParams{})
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// FuzzMarshalOnce: for any strings and members, MarshalOnce gives
// Marshal's bytes.
func FuzzMarshalOnce(f *testing.F) {
	f.Add(uint16(0x1ff), "2025-11-25", "mcpengine", "0.1.0")
	f.Add(uint16(0xffff), "\x00", "é", "\"")
	f.Fuzz(func(t *testing.T, bits uint16, version, name, text string) {
		p := initializeParamsVariant(bits, version, name, text)
		want, err := Marshal(p)
		require.NoError(t, err)
		got, err := MarshalOnce(p)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

// The parts of a 2026-07-28 request's _meta: MarshalOnce gives Marshal's
// bytes for the capabilities and the client info alone too.
func TestMarshalOnceMatchesMarshalForMetaParts(t *testing.T) {
	for bits := range uint16(1 << 15) {
		if bits&0x7ff != bits && bits&0x7ff != 0x7ff {
			continue
		}
		for _, s := range [][2]string{{"mcpengine", "0.1.0"}, {"na\"me", "\xff"}} {
			p := initializeParamsVariant(bits, "v", s[0], s[1])
			for _, v := range []any{&p.Capabilities, &p.ClientInfo} {
				want, err := Marshal(v)
				require.NoError(t, err)
				got, err := MarshalOnce(v)
				require.NoError(t, err)
				require.Equal(t, string(want), string(got), "bits %b, %#v", bits, v)
			}
		}
	}
}
