// This file holds a DNS server for tests of nginx's and edge's
// `resolver`: authoritative answers from a table the test fills, on UDP
// and TCP of one free loopback port, with the cases a resolver must
// handle (several addresses, a TTL, NXDOMAIN and other error codes, a
// CNAME, a truncated UDP answer, no answer at all), and a count of the
// questions each name got.

package testenv

import (
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// DNSRecord is what the server answers for one name.
type DNSRecord struct {
	Addrs []string // IPv4 and IPv6 addresses, answered to A and AAAA
	CNAME string   // answered (alone, or before Addrs) to both
	TTL   uint32   // seconds
	// RCode is the answer's code (3: NXDOMAIN); names not in the table
	// get 3.
	RCode dnsmessage.RCode
	// Truncate answers over UDP with TC set and nothing else, the full
	// answer only over TCP.
	Truncate bool
	// Silent drops the questions: the resolver times out.
	Silent bool
}

// DNS is a running test DNS server.
type DNS struct {
	Addr    string // "127.0.0.1:port", UDP and TCP
	mu      sync.Mutex
	records map[string]DNSRecord
	asked   map[string]int
	tcp     int
}

// StartDNS starts a server answering from records (names without the
// trailing dot, any case); it stops when the test ends.
func StartDNS(t testing.TB, records map[string]DNSRecord) *DNS {
	t.Helper()
	d := &DNS{records: map[string]DNSRecord{}, asked: map[string]int{}}
	for k, v := range records {
		d.Set(k, v)
	}
	for range 20 {
		port := FreePort(t)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			continue
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			pc.Close()
			continue
		}
		d.Addr = addr
		t.Cleanup(func() { pc.Close(); ln.Close() })
		go d.serveUDP(pc)
		go d.serveTCP(ln)
		return d
	}
	t.Fatalf("testenv: dns: no free port for UDP and TCP")
	return nil
}

// Set replaces the answer for name.
func (d *DNS) Set(name string, r DNSRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.records[dnsKey(name)] = r
}

// Asked is how many A questions name got (over UDP and TCP).
func (d *DNS) Asked(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asked[dnsKey(name)]
}

// TCPAsked is how many questions came over TCP.
func (d *DNS) TCPAsked() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tcp
}

func dnsKey(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) }

func (d *DNS) serveUDP(pc net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out := d.answer(buf[:n], false); out != nil {
			_, _ = pc.WriteTo(out, from)
		}
	}
}

func (d *DNS) serveTCP(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			for {
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				msg := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, msg); err != nil {
					return
				}
				out := d.answer(msg, true)
				if out == nil {
					return
				}
				if _, err := c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...)); err != nil {
					return
				}
			}
		}()
	}
}

// answer builds the reply to msg; nil sends none.
func (d *DNS) answer(msg []byte, tcp bool) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	name := dnsKey(q.Name.String())
	d.mu.Lock()
	rec, known := d.records[name]
	if q.Type == dnsmessage.TypeA {
		d.asked[name]++
	}
	if tcp {
		d.tcp++
	}
	d.mu.Unlock()
	if !known {
		rec.RCode = dnsmessage.RCodeNameError
	}
	if rec.Silent {
		return nil
	}
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RCode: rec.RCode}
	if rec.Truncate && !tcp {
		rh.Truncated = true
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if rec.RCode == 0 && !rh.Truncated {
		owner := q.Name
		if rec.CNAME != "" {
			target := dnsmessage.MustNewName(strings.TrimSuffix(rec.CNAME, ".") + ".")
			_ = b.CNAMEResource(dnsmessage.ResourceHeader{Name: owner, Class: dnsmessage.ClassINET, TTL: rec.TTL}, dnsmessage.CNAMEResource{CNAME: target})
			owner = target
		}
		for _, s := range rec.Addrs {
			a := netip.MustParseAddr(s)
			hdr := dnsmessage.ResourceHeader{Name: owner, Class: dnsmessage.ClassINET, TTL: rec.TTL}
			switch {
			case a.Is4() && q.Type == dnsmessage.TypeA:
				_ = b.AResource(hdr, dnsmessage.AResource{A: a.As4()})
			case a.Is6() && q.Type == dnsmessage.TypeAAAA:
				_ = b.AAAAResource(hdr, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}
