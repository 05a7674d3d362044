package httpx

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func transportOf(t *testing.T, c *http.Client) *http.Transport {
	t.Helper()
	if h2c, ok := c.Transport.(*h2cTransport); ok {
		return h2c.Transport
	}
	if p, ok := c.Transport.(*pooledTransport); ok {
		return p.calls
	}
	tr, ok := c.Transport.(*http.Transport)
	require.True(t, ok, "NewClient's transport is net/http's")
	return tr
}

func TestNewClientDefaultsSuitManyLongLivedSessions(t *testing.T) {
	c := NewClient(ClientOptions{})
	defer c.CloseIdleConnections()
	assert.Zero(t, c.Timeout, "no overall timeout: event streams stay open")
	tr := transportOf(t, c)
	assert.True(t, tr.ForceAttemptHTTP2)
	assert.Equal(t, DefaultMaxIdleConns, tr.MaxIdleConns)
	assert.Equal(t, DefaultMaxIdleConnsPerHost, tr.MaxIdleConnsPerHost)
	assert.GreaterOrEqual(t, tr.MaxIdleConnsPerHost, 100)
	assert.Equal(t, DefaultMaxConnsPerHost, tr.MaxConnsPerHost, "HTTP/1.1 calls capped per server")
	assert.Equal(t, DefaultTLSHandshakeTimeout, tr.TLSHandshakeTimeout)
	assert.Equal(t, DefaultResponseHeaderTimeout, tr.ResponseHeaderTimeout)
	assert.Equal(t, DefaultIdleConnTimeout, tr.IdleConnTimeout)
	assert.Equal(t, DefaultHTTP2PingAfter, tr.HTTP2.SendPingTimeout)
	assert.Equal(t, DefaultHTTP2PingTimeout, tr.HTTP2.PingTimeout)
	assert.Equal(t, DefaultHTTP2WriteTimeout, tr.HTTP2.WriteByteTimeout)
	assert.Equal(t, DefaultHTTP2StreamWindow, tr.HTTP2.MaxReceiveBufferPerStream)
	assert.False(t, tr.HTTP2.StrictMaxConcurrentRequests)
	assert.Nil(t, tr.Protocols, "HTTP/1.1, and HTTP/2 through ALPN (ForceAttemptHTTP2)")
	assert.NotNil(t, tr.Proxy)
	assert.NotNil(t, tr.DialContext)
}

func TestNewClientOptionsApply(t *testing.T) {
	cfg := &tls.Config{ServerName: "x", MinVersion: tls.VersionTLS13}
	c := NewClient(ClientOptions{
		MaxIdleConns: 7, MaxIdleConnsPerHost: 3, MaxConnsPerHost: 9,
		ResponseHeaderTimeout: -1, HTTP2PingAfter: -1, TLSHandshakeTimeout: time.Second,
		TLS: cfg, Proxy: NoProxy,
	})
	defer c.CloseIdleConnections()
	tr := transportOf(t, c)
	assert.Equal(t, 7, tr.MaxIdleConns)
	assert.Equal(t, 3, tr.MaxIdleConnsPerHost)
	assert.Equal(t, 9, tr.MaxConnsPerHost)
	assert.Zero(t, tr.ResponseHeaderTimeout, "negative disables")
	assert.Zero(t, tr.HTTP2.SendPingTimeout, "negative disables")
	assert.Equal(t, time.Second, tr.TLSHandshakeTimeout)
	require.NotNil(t, tr.TLSClientConfig)
	assert.NotSame(t, cfg, tr.TLSClientConfig, "the TLS config is cloned")
	assert.Equal(t, "x", tr.TLSClientConfig.ServerName)
	u, err := tr.Proxy(httptest.NewRequest(http.MethodGet, "http://example.com", nil))
	assert.NoError(t, err)
	assert.Nil(t, u)
}

func TestDefaultClientIsShared(t *testing.T) {
	assert.Same(t, DefaultClient(), DefaultClient())
}

func TestResponseHeaderTimeoutBoundsASilentServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(ClientOptions{ResponseHeaderTimeout: 50 * time.Millisecond, Proxy: NoProxy})
	defer c.CloseIdleConnections()
	_, err := c.Get(srv.URL)
	require.Error(t, err)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
}

// pki is a throwaway CA with a server certificate for 127.0.0.1 and a
// client certificate, written to PEM files.
type pki struct {
	caFile, certFile, keyFile string
	pool                      *x509.CertPool
	server                    tls.Certificate
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)

	issue := func(serial int64, usage x509.ExtKeyUsage, ip net.IP) ([]byte, *ecdsa.PrivateKey) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
		}
		if ip != nil {
			tmpl.IPAddresses = []net.IP{ip}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		return der, key
	}
	pemOf := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	keyPEM := func(k *ecdsa.PrivateKey) []byte {
		b, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		return pemOf("EC PRIVATE KEY", b)
	}

	p := &pki{
		caFile:   filepath.Join(dir, "ca.pem"),
		certFile: filepath.Join(dir, "client.pem"),
		keyFile:  filepath.Join(dir, "client-key.pem"),
		pool:     x509.NewCertPool(),
	}
	p.pool.AddCert(ca)
	require.NoError(t, os.WriteFile(p.caFile, pemOf("CERTIFICATE", caDER), 0o600))
	srvDER, srvKey := issue(2, x509.ExtKeyUsageServerAuth, net.ParseIP("127.0.0.1"))
	p.server, err = tls.X509KeyPair(pemOf("CERTIFICATE", srvDER), keyPEM(srvKey))
	require.NoError(t, err)
	cliDER, cliKey := issue(3, x509.ExtKeyUsageClientAuth, nil)
	require.NoError(t, os.WriteFile(p.certFile, pemOf("CERTIFICATE", cliDER), 0o600))
	require.NoError(t, os.WriteFile(p.keyFile, keyPEM(cliKey), 0o600))
	return p
}

// tlsServer answers with the negotiated protocol and the client
// certificate's presence.
func tlsServer(t *testing.T, p *pki, clientAuth tls.ClientAuthType) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer := "no-client-cert"
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			peer = "client-cert"
		}
		_, _ = io.WriteString(w, r.Proto+" "+peer)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{p.server}, ClientCAs: p.pool, ClientAuth: clientAuth}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, c *http.Client, url string) (string, error) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestTLSOptionsTrustAPrivateCAAndSpeakHTTP2(t *testing.T) {
	p := newPKI(t)
	srv := tlsServer(t, p, tls.NoClientCert)

	cfg, err := TLSOptions{CAFile: p.caFile}.Config()
	require.NoError(t, err)
	c := NewClient(ClientOptions{TLS: cfg, Proxy: NoProxy})
	defer c.CloseIdleConnections()
	body, err := get(t, c, srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "HTTP/2.0 no-client-cert", body, "HTTP/2 is used with a custom TLS config")

	// Without the CA the server is not trusted...
	plain := NewClient(ClientOptions{Proxy: NoProxy})
	defer plain.CloseIdleConnections()
	_, err = get(t, plain, srv.URL)
	require.Error(t, err)

	// ...unless verification is switched off.
	cfg, err = TLSOptions{InsecureSkipVerify: true}.Config()
	require.NoError(t, err)
	insecure := NewClient(ClientOptions{TLS: cfg, Proxy: NoProxy})
	defer insecure.CloseIdleConnections()
	_, err = get(t, insecure, srv.URL)
	require.NoError(t, err)
}

func TestTLSOptionsClientCertificate(t *testing.T) {
	p := newPKI(t)
	srv := tlsServer(t, p, tls.RequireAndVerifyClientCert)

	cfg, err := TLSOptions{CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile}.Config()
	require.NoError(t, err)
	c := NewClient(ClientOptions{TLS: cfg, Proxy: NoProxy})
	defer c.CloseIdleConnections()
	body, err := get(t, c, srv.URL)
	require.NoError(t, err)
	assert.Contains(t, body, "client-cert")

	cfg, err = TLSOptions{CAFile: p.caFile}.Config()
	require.NoError(t, err)
	without := NewClient(ClientOptions{TLS: cfg, Proxy: NoProxy})
	defer without.CloseIdleConnections()
	_, err = get(t, without, srv.URL)
	assert.Error(t, err, "the server requires a client certificate")
}

func TestTLSOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := TLSOptions{CAFile: filepath.Join(dir, "missing.pem")}.Config()
	assert.ErrorIs(t, err, os.ErrNotExist)

	junk := filepath.Join(dir, "junk.pem")
	require.NoError(t, os.WriteFile(junk, []byte("SECRET-CONTENT"), 0o600))
	_, err = TLSOptions{CAFile: junk}.Config()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "SECRET-CONTENT")

	_, err = TLSOptions{CertFile: junk}.Config()
	assert.Error(t, err, "a certificate without its key")
	_, err = TLSOptions{CertFile: junk, KeyFile: junk}.Config()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "SECRET-CONTENT")

	cfg, err := TLSOptions{}.Config()
	require.NoError(t, err)
	assert.Equal(t, uint16(tls.VersionTLS12), cfg.MinVersion)
	assert.True(t, TLSOptions{}.IsZero())
	assert.False(t, TLSOptions{ServerName: "a"}.IsZero())
}

// HTTP2PriorKnowledge: http:// requests go as h2c from the first byte
// (net/http's Protocols without HTTP1); https keeps HTTP/2 by ALPN.
func TestPriorKnowledgeSpeaksH2CAndKeepsALPN(t *testing.T) {
	c := NewClient(ClientOptions{HTTP2PriorKnowledge: true, Proxy: NoProxy})
	defer c.CloseIdleConnections()
	p := transportOf(t, c).Protocols
	require.NotNil(t, p)
	assert.False(t, p.HTTP1(), "without HTTP1, http:// goes as prior-knowledge h2c")
	assert.True(t, p.UnencryptedHTTP2())
	assert.True(t, p.HTTP2())

	b := newBurstServer(t)
	resp, err := c.Get(b.srv.URL)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, 2, resp.ProtoMajor)
}

// An https server that offers h2 by ALPN gets HTTP/2, also with a TLS
// configuration of the engine's own (ForceAttemptHTTP2).
func TestTLSNegotiatesH2ByALPN(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	cfg := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	c := NewClient(ClientOptions{TLS: cfg, Proxy: NoProxy})
	defer c.CloseIdleConnections()
	resp, err := c.Get(srv.URL)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, "HTTP/2.0", string(body))
}
