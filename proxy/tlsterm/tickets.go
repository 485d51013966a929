// This file seals TLS session tickets, edge's form of nginx's session
// cache: Go's crypto/tls keeps no server-side session cache, so
// ssl_session_cache maps onto tickets and ssl_session_timeout onto their
// lifetime, which Go does not bound below 7 days on its own.
//
// Keys: with ssl_session_ticket_key files, the keys derived from them
// (conf.LoadSSLTicketKeys; the first encrypts, all decrypt), so edge
// instances given the same files resume each other's sessions; without,
// Go's random keys, rotated daily and kept for a week, shared by every
// server and kept across reloads. Keys live on a holder tls.Config whose
// EncryptTicket/DecryptTicket become WrapSession/UnwrapSession, which
// survives any cloning of the serving config (LIBRARIES.md).
//
// Each ticket carries, in SessionState.Extra, the server it was issued by
// and when it expires: a ticket from another server{} or an expired one
// gives a full handshake instead of a resumption.
package tlsterm

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"time"

	"edge/conf"
)

// ticketStampPrefix marks edge's entry in SessionState.Extra.
const ticketStampPrefix = "edge-ticket-v1:"

// ticketStampLen is the prefix, an 8-byte server tag and an 8-byte
// expiry (unix seconds).
const ticketStampLen = len(ticketStampPrefix) + 16

// ticketSealer wraps and unwraps the session tickets of one server.
type ticketSealer struct {
	keys    *tls.Config // a holder: only its ticket keys are used
	timeout time.Duration
	server  [8]byte
	now     func() time.Time
}

// ticketKeyHolders shares one holder per set of ticket key files, so a
// set's keys are expanded once.
var ticketKeyHolders sync.Map // string (joined keys) -> *tls.Config

// ticketSealer returns the sealer for a server.
func (ts *Shared) ticketSealer(t *conf.ServerTLS, srv *conf.Server) *ticketSealer {
	s := &ticketSealer{keys: ts.tickets, timeout: t.SessionTimeout, server: serverTag(srv), now: time.Now}
	if len(t.TicketKeys) > 0 {
		id := string(bytes.Join(keySlices(t.TicketKeys), nil))
		holder, ok := ticketKeyHolders.Load(id)
		if !ok {
			h := &tls.Config{}
			h.SetSessionTicketKeys(t.TicketKeys)
			holder, _ = ticketKeyHolders.LoadOrStore(id, h)
		}
		s.keys = holder.(*tls.Config)
	}
	return s
}

func keySlices(keys [][32]byte) [][]byte {
	out := make([][]byte, len(keys))
	for i := range keys {
		out[i] = keys[i][:]
	}
	return out
}

// serverTag names a server by its server_name list, so the tag is the
// same in every edge instance (and every reload) with that server.
func serverTag(srv *conf.Server) [8]byte {
	names := make([]string, 0, len(srv.Names))
	for _, n := range srv.Names {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	sum := sha256.Sum256([]byte(strings.Join(names, "\x00")))
	var tag [8]byte
	copy(tag[:], sum[:])
	return tag
}

// wrap is WrapSession: it stamps the session and encrypts it.
func (s *ticketSealer) wrap(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
	s.wrapStamp(ss)
	return s.keys.EncryptTicket(cs, ss)
}

// wrapStamp adds the server's tag and the expiry to a session.
func (s *ticketSealer) wrapStamp(ss *tls.SessionState) {
	stamp := make([]byte, 0, ticketStampLen)
	stamp = append(stamp, ticketStampPrefix...)
	stamp = append(stamp, s.server[:]...)
	stamp = binary.BigEndian.AppendUint64(stamp, uint64(s.now().Add(s.timeout).Unix()))
	ss.Extra = append(ss.Extra, stamp)
}

// unwrap is UnwrapSession: a ticket that does not decrypt, comes from
// another server or has expired gives (nil, nil), a full handshake.
func (s *ticketSealer) unwrap(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
	ss, err := s.keys.DecryptTicket(identity, cs)
	if err != nil || ss == nil {
		return nil, nil
	}
	if !s.valid(ss.Extra) {
		return nil, nil
	}
	return ss, nil
}

// valid checks the last stamp in a session's Extra.
func (s *ticketSealer) valid(extra [][]byte) bool {
	for i := len(extra) - 1; i >= 0; i-- {
		e := extra[i]
		if len(e) != ticketStampLen || !bytes.HasPrefix(e, []byte(ticketStampPrefix)) {
			continue
		}
		e = e[len(ticketStampPrefix):]
		if !bytes.Equal(e[:8], s.server[:]) {
			return false
		}
		expiry := int64(binary.BigEndian.Uint64(e[8:]))
		return s.now().Unix() < expiry
	}
	return false
}
