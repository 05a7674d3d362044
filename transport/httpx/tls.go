package httpx

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSOptions describes a TLS client configuration in the terms a server
// configuration file uses.
type TLSOptions struct {
	// CAFile is a PEM file of certificate authorities to trust instead of
	// the system roots (a private CA, a self-signed development server).
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// servers that require mutual TLS. Both or neither.
	CertFile, KeyFile string
	// ServerName overrides the name the server certificate is checked
	// against (and sent in SNI).
	ServerName string
	// InsecureSkipVerify accepts any server certificate. For development
	// only: it makes the connection open to interception.
	InsecureSkipVerify bool
	// MinVersion is the lowest TLS version accepted; zero means TLS 1.2.
	MinVersion uint16
}

// IsZero reports whether o asks for nothing beyond Go's defaults.
func (o TLSOptions) IsZero() bool { return o == TLSOptions{} }

// Config builds the *tls.Config. Errors name the files involved but never
// their contents.
func (o TLSOptions) Config() (*tls.Config, error) {
	c := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         o.ServerName,
		InsecureSkipVerify: o.InsecureSkipVerify, //nolint:gosec // opt-in, documented as development only
	}
	if o.MinVersion != 0 {
		c.MinVersion = o.MinVersion
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("httpx: CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("httpx: CA file %s holds no PEM certificate", o.CAFile)
		}
		c.RootCAs = pool
	}
	switch {
	case o.CertFile != "" && o.KeyFile != "":
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			// The tls error names no key material, only what failed to parse.
			return nil, fmt.Errorf("httpx: client certificate %s: %w", o.CertFile, err)
		}
		c.Certificates = []tls.Certificate{cert}
	case o.CertFile != "" || o.KeyFile != "":
		return nil, errors.New("httpx: a client certificate needs both CertFile and KeyFile")
	}
	return c, nil
}
