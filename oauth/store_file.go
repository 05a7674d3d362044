package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// fileStore keeps one JSON file per key in dir. The file name is the
// SHA-256 of the key (keys hold URLs, which are no file names), the
// directory is 0700 and the files 0600 (they hold tokens), and every write
// goes to a temporary file renamed over the old one so that a reader or a
// crash never sees half a record. A directory group or others may write,
// or a file they may read, is refused (store_perm.go), as ssh refuses
// loose key files.
type fileStore struct {
	dir string
}

func newFileStore(dir string) TokenStore { return &fileStore{dir: dir} }

func (s *fileStore) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:])+".json")
}

func (s *fileStore) Load(_ context.Context, key string) (*Record, error) {
	if err := checkDirMode(s.dir); err != nil {
		return nil, err
	}
	b, err := readTokenFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		// Never wrap the JSON error: it may quote the file's content.
		return nil, fmt.Errorf("oauth: token store: %s is not a record", s.path(key))
	}
	return &rec, nil
}

func (s *fileStore) Save(_ context.Context, key string, rec *Record) error {
	if err := checkDirMode(s.dir); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("oauth: token store: encoding the record failed")
	}
	// CreateTemp makes the file 0600 before anything is written to it.
	tmp, err := os.CreateTemp(s.dir, ".record-*.tmp")
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(key)); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}

// readTokenFile reads a record's file after checking, on the open file
// (no window for a swap between the check and the read), that only its
// owner may read it.
func readTokenFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	defer f.Close()
	if err := checkFileMode(f); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	return b, nil
}

func (s *fileStore) Delete(_ context.Context, key string) error {
	err := os.Remove(s.path(key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}
