package messages_test

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/schemacheck"
	"github.com/mcpengine/mcpengine/messages"
)

// The table's versions are the specification's: in every version, the
// methods the table says exist are exactly those its schema defines.
func TestMethodTableMatchesEverySchema(t *testing.T) {
	for _, v := range schemacheck.Versions() {
		want, err := schemacheck.Methods(v)
		require.NoError(t, err)
		var got []string
		for i := range messages.MethodTable {
			if messages.MethodTable[i].InVersion(v) {
				got = append(got, messages.MethodTable[i].Name)
			}
		}
		slices.Sort(got)
		assert.Equal(t, want, got, "protocol version %s", v)
	}
}

// A decoded message's method is the table's string, not a copy.
func TestDecodedMethodsAreTheTablesStrings(t *testing.T) {
	for i := range messages.MethodTable {
		spec := &messages.MethodTable[i]
		msgs, errs := messages.DecodeFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + spec.Name + `"}`))
		require.Empty(t, errs, spec.Name)
		require.Len(t, msgs, 1)
		got, ok := messages.LookupMethod(msgs[0].Method)
		require.True(t, ok, spec.Name)
		assert.Same(t, spec, got)
		assert.Equal(t, unsafe.StringData(spec.Name), unsafe.StringData(msgs[0].Method), spec.Name)
	}
}
