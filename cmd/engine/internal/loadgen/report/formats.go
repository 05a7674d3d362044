package report

import (
	"io"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// Formats are the report formats by the name -O takes.
var Formats = map[string]func(io.Writer, *loadgen.Result) error{
	"text": Text,
	"json": JSON,
	"csv":  CSV,
	"html": HTML,
	"prom": Prometheus,
}
