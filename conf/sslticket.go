// sslticket.go reads nginx's ssl_session_ticket_key files and turns each
// into the 32-byte key Go's crypto/tls wants.
//
// nginx's file is 48 bytes (16 key name, 16 AES-128 key, 16 HMAC-SHA256
// key) or 80 bytes (16 key name, 32 HMAC-SHA256 key, 32 AES-256 key). With
// several ssl_session_ticket_key directives the first key encrypts new
// tickets and the others only decrypt, which is how keys are rotated; Go's
// tls.Config.SetSessionTicketKeys follows the same rule (the first key
// encrypts), so the keys keep their order.
//
// Go's tickets are not OpenSSL's: Go derives its own AES and HMAC keys from
// the 32 bytes and uses its own ticket format, so nginx and edge cannot
// resume each other's sessions even when given the same file. Edge instances
// given the same file can: the derivation is deterministic.
//
// Go's http.Server.ServeTLS clones the tls.Config, so keys set on the
// original later are not seen; set them on a holder config and wire its
// EncryptTicket/DecryptTicket into WrapSession/UnwrapSession (the project's
// LIBRARIES.md, "crypto/tls session tickets").

package conf

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

// sslTicketKeyLabel separates edge's derivation from any other use of the
// same file content.
const sslTicketKeyLabel = "edge ssl_session_ticket_key v1\x00"

// LoadSSLTicketKey loads one nginx session-ticket key file (48 or 80
// bytes) and derives Go's 32-byte key from it: SHA-256 over a fixed label
// and the whole file content, so every edge instance given the same file
// derives the same key. Errors for a wrong size use nginx's wording.
func LoadSSLTicketKey(path string) ([32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return [32]byte{}, fmt.Errorf("conf: ssl_session_ticket_key: %w", err)
	}
	defer f.Close()
	// Read one byte more than the largest valid size, so that a large
	// file is rejected without being read whole.
	buf, err := io.ReadAll(io.LimitReader(f, 81))
	if err != nil {
		return [32]byte{}, fmt.Errorf("conf: ssl_session_ticket_key: %w", err)
	}
	if len(buf) != 48 && len(buf) != 80 {
		return [32]byte{}, fmt.Errorf("conf: \"%s\" must be 48 or 80 bytes", path)
	}
	h := sha256.New()
	h.Write([]byte(sslTicketKeyLabel))
	h.Write(buf)
	var key [32]byte
	h.Sum(key[:0])
	return key, nil
}

// LoadSSLTicketKeys loads the files of several ssl_session_ticket_key
// directives in order: the first key encrypts, all decrypt (ready for
// tls.Config.SetSessionTicketKeys).
func LoadSSLTicketKeys(paths []string) ([][32]byte, error) {
	keys := make([][32]byte, 0, len(paths))
	for _, p := range paths {
		k, err := LoadSSLTicketKey(p)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}
