// This file speaks DNS to one server: the A and AAAA questions sent
// together on one UDP socket of a random port (each with a random ID),
// the answers matched to them by ID and question, a truncated answer
// asked again over TCP, and a CNAME without addresses followed.

package resolver

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// maxCNAME bounds the CNAMEs followed (nginx's NGX_RESOLVER_MAX_RECURSION
// is 50; a chain that long is a loop).
const maxCNAME = 8

// answer is what one question got.
type answer struct {
	rcode int
	addrs []netip.Addr
	ttl   time.Duration
	cname string
}

// exchange resolves name at srv: the addresses of the families asked
// for, the smallest TTL among them, or an *Error for an answer without
// addresses; another error is a failure of this server (no answer in
// time, a socket error).
func exchange(ctx context.Context, srv netip.AddrPort, name string, v4, v6 bool) ([]netip.Addr, time.Duration, error) {
	for range maxCNAME {
		var types []dnsmessage.Type
		if v4 {
			types = append(types, dnsmessage.TypeA)
		}
		if v6 {
			types = append(types, dnsmessage.TypeAAAA)
		}
		answers, err := askUDP(ctx, srv, name, types)
		if err != nil {
			return nil, 0, err
		}
		var addrs []netip.Addr
		ttl := time.Duration(-1)
		rcode, cname := 0, ""
		for _, a := range answers {
			if len(a.addrs) > 0 {
				addrs = append(addrs, a.addrs...)
				if ttl < 0 || a.ttl < ttl {
					ttl = a.ttl
				}
			}
			if a.rcode != 0 && rcode == 0 {
				rcode = a.rcode
			}
			if a.cname != "" {
				cname = a.cname
			}
		}
		if len(addrs) > 0 {
			return addrs, ttl, nil
		}
		if rcode != 0 {
			return nil, 0, &Error{Code: rcode}
		}
		if cname == "" {
			return nil, 0, &Error{Code: 3} // nginx: no addresses is "Host not found"
		}
		name = cname
	}
	return nil, 0, &Error{Code: 3}
}

// query is one question on the wire.
type query struct {
	id  uint16
	typ dnsmessage.Type
	msg []byte
}

// askUDP sends one question per type and returns their answers in the
// same order; one that comes truncated is asked again over TCP.
func askUDP(ctx context.Context, srv netip.AddrPort, name string, types []dnsmessage.Type) ([]answer, error) {
	qname, err := dnsmessage.NewName(fqdn(name))
	if err != nil {
		return nil, &Error{Code: 3}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "udp", srv.String())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	qs := make([]query, len(types))
	for i, t := range types {
		qs[i] = query{id: randomID(), typ: t}
		if qs[i].msg, err = buildQuery(qs[i].id, qname, t); err != nil {
			return nil, err
		}
		if _, err := c.Write(qs[i].msg); err != nil {
			return nil, err
		}
	}
	out := make([]answer, len(types))
	got := make([]bool, len(types))
	buf := make([]byte, 4096)
	for left := len(types); left > 0; {
		n, err := c.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, context.DeadlineExceeded
			}
			// An ICMP "port unreachable" shows as a read error.
			return nil, err
		}
		for i := range qs {
			if got[i] {
				continue
			}
			a, truncated, ok := parseAnswer(buf[:n], qs[i].id, qname, qs[i].typ)
			if !ok {
				continue
			}
			if truncated {
				if a, err = askTCP(ctx, srv, qs[i], qname); err != nil {
					return nil, err
				}
			}
			out[i], got[i] = a, true
			left--
			break
		}
	}
	return out, nil
}

// askTCP asks q again over TCP (RFC 7766), after a truncated UDP answer.
func askTCP(ctx context.Context, srv netip.AddrPort, q query, qname dnsmessage.Name) (answer, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", srv.String())
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	msg := binary.BigEndian.AppendUint16(nil, uint16(len(q.msg)))
	if _, err := c.Write(append(msg, q.msg...)); err != nil {
		return answer{}, err
	}
	var l [2]byte
	if _, err := io.ReadFull(c, l[:]); err != nil {
		return answer{}, err
	}
	buf := make([]byte, binary.BigEndian.Uint16(l[:]))
	if _, err := io.ReadFull(c, buf); err != nil {
		return answer{}, err
	}
	a, _, ok := parseAnswer(buf, q.id, qname, q.typ)
	if !ok {
		return answer{}, errors.New("resolver: invalid answer over TCP")
	}
	return a, nil
}

func buildQuery(id uint16, name dnsmessage.Name, t dnsmessage.Type) ([]byte, error) {
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: true})
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(dnsmessage.Question{Name: name, Type: t, Class: dnsmessage.ClassINET}); err != nil {
		return nil, err
	}
	return b.Finish()
}

// parseAnswer reads msg as the answer to question (id, name, t); ok is
// false for a message that is not that answer (another ID, another
// question, not a response), which is ignored as nginx ignores it.
func parseAnswer(msg []byte, id uint16, name dnsmessage.Name, t dnsmessage.Type) (a answer, truncated, ok bool) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil || !h.Response || h.ID != id {
		return a, false, false
	}
	q, err := p.Question()
	if err != nil || q.Type != t || !equalNames(q.Name, name) {
		return a, false, false
	}
	_ = p.SkipAllQuestions()
	if h.Truncated {
		return a, true, true
	}
	a.rcode = int(h.RCode)
	if a.rcode != 0 {
		return a, false, true
	}
	ttl := uint32(0)
	for {
		rh, err := p.AnswerHeader()
		if err != nil {
			break
		}
		switch {
		case rh.Type == dnsmessage.TypeA && t == dnsmessage.TypeA:
			r, err := p.AResource()
			if err != nil {
				return a, false, true
			}
			a.addrs = append(a.addrs, netip.AddrFrom4(r.A))
		case rh.Type == dnsmessage.TypeAAAA && t == dnsmessage.TypeAAAA:
			r, err := p.AAAAResource()
			if err != nil {
				return a, false, true
			}
			a.addrs = append(a.addrs, netip.AddrFrom16(r.AAAA))
		case rh.Type == dnsmessage.TypeCNAME:
			r, err := p.CNAMEResource()
			if err != nil {
				return a, false, true
			}
			a.cname = r.CNAME.String()
			continue
		default:
			_ = p.SkipAnswer()
			continue
		}
		if len(a.addrs) == 1 || rh.TTL < ttl {
			ttl = rh.TTL
		}
	}
	a.ttl = time.Duration(ttl) * time.Second
	return a, false, true
}

// equalNames compares DNS names without case (RFC 4343).
func equalNames(a, b dnsmessage.Name) bool {
	x, y := a.Data[:a.Length], b.Data[:b.Length]
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		c, d := x[i], y[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

func fqdn(name string) string {
	if len(name) > 0 && name[len(name)-1] == '.' {
		return name
	}
	return name + "."
}

func randomID() uint16 {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint16(b[:])
}
