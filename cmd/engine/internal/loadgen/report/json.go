package report

import (
	"encoding/json"
	"io"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// JSON writes the result as indented JSON (the schema loadgen.SchemaVersion
// names), the input of `engine load compare`.
func JSON(w io.Writer, r *loadgen.Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
