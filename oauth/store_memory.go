package oauth

import (
	"context"
	"sync"
)

// memoryStore is the process-lifetime TokenStore. It stores copies so
// that neither its callers nor the Authorizer alias each other's records.
type memoryStore struct {
	mu      sync.Mutex
	records map[string]*Record
}

func newMemoryStore() TokenStore { return &memoryStore{records: map[string]*Record{}} }

func (s *memoryStore) Load(_ context.Context, key string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records[key].clone(), nil
}

func (s *memoryStore) Save(_ context.Context, key string, rec *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[key] = rec.clone()
	return nil
}

func (s *memoryStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, key)
	return nil
}
