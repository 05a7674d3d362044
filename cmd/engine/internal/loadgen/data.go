package loadgen

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxDataRows bounds a data file: rows are held in memory for the whole
// run, so a file meant to be streamed is refused rather than swallowed.
const maxDataRows = 1_000_000

// LoadData reads the rows of a data file for argument templates: CSV with
// a header line (every value a string), or JSON Lines (.jsonl, .ndjson:
// one object per line, values keep their JSON types).
func LoadData(path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []map[string]any
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		rows, err = readCSV(f)
	case ".jsonl", ".ndjson":
		rows, err = readJSONL(f)
	default:
		return nil, fmt.Errorf("data file %s: use .csv (with a header line) or .jsonl (one JSON object per line)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("data file %s has no rows", path)
	}
	return rows, nil
}

func readCSV(r io.Reader) ([]map[string]any, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	header = slices.Clone(header)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff") // a BOM from spreadsheet exports
	}
	var rows []map[string]any
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rows) >= maxDataRows {
			return nil, fmt.Errorf("more than %d rows", maxDataRows)
		}
		row := make(map[string]any, len(header))
		for i, h := range header {
			if i < len(rec) {
				row[h] = rec[i]
			}
		}
		rows = append(rows, row)
	}
}

func readJSONL(r io.Reader) ([]map[string]any, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var rows []map[string]any
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if len(rows) >= maxDataRows {
			return nil, fmt.Errorf("more than %d rows", maxDataRows)
		}
		var row map[string]any
		if err := json.Unmarshal(b, &row); err != nil || row == nil {
			return nil, fmt.Errorf("line %d is not a JSON object", line)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}
