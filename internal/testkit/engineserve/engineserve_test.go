package engineserve

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConfigRunsServeWithTheFlags(t *testing.T) {
	sc := Config("/bin/engine", "--era", "legacy")
	assert.Equal(t, "/bin/engine", sc.Command)
	assert.Equal(t, []string{"serve", "--era", "legacy"}, sc.Args)
}
