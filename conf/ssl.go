// This file holds the TLS settings of a server (the ssl_* directives).
package conf

// ServerTLS is a server's TLS configuration.
type ServerTLS struct {
	Certificates []CertPair
}

// CertPair is one ssl_certificate / ssl_certificate_key pair.
type CertPair struct {
	Cert string
	Key  string
}

// mergeTLS fills a TLS server's settings from the http level and the
// defaults.
func (c *compiler) mergeTLS(s *Server) {}
